package dev.tern.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Predicate;

import dev.tern.protocol.Json;
import dev.tern.protocol.JsonRpcCodec;
import dev.tern.protocol.JsonRpcMessage;
import dev.tern.protocol.JsonRpcResponse;
import dev.tern.protocol.JsonRpcNotification;
import dev.tern.protocol.JsonRpcRequest;
import dev.tern.protocol.RequestId;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The client end of an in-memory connection to a server: a recording {@link Outbound} that turns every message the
 * server sends into bytes and back (as a transport would), plus methods to send requests and wait for answers.
 * Optionally checks what the server sends against the MCP schema of the revision spoken. Thread-safe.
 */
final class Peer implements Outbound, AutoCloseable {
    static final String MODERN = "2026-07-28";
    static final String META_VERSION = "io.modelcontextprotocol/protocolVersion";
    static final String META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
    static final String META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
    static final String META_LOG_LEVEL = "io.modelcontextprotocol/logLevel";
    static final String META_SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";
    private static final Duration WAIT = Duration.ofSeconds(20);

    /** What the server sent: the message as the client would read it, and the request it said it relates to. */
    record Sent(JsonNode message, RequestId relatedTo, boolean batch) {
    }

    private static final Map<String, String> RESULT_TYPES = Map.ofEntries(
            Map.entry("initialize", "InitializeResult"),
            Map.entry("server/discover", "DiscoverResult"),
            Map.entry("tools/list", "ListToolsResult"),
            Map.entry("tools/call", "CallToolResult"),
            Map.entry("resources/list", "ListResourcesResult"),
            Map.entry("resources/templates/list", "ListResourceTemplatesResult"),
            Map.entry("resources/read", "ReadResourceResult"),
            Map.entry("prompts/list", "ListPromptsResult"),
            Map.entry("prompts/get", "GetPromptResult"),
            Map.entry("completion/complete", "CompleteResult"),
            Map.entry("subscriptions/listen", "SubscriptionsListenResult"));

    private static final Map<String, String> NOTIFICATION_TYPES = Map.ofEntries(
            Map.entry("notifications/progress", "ProgressNotification"),
            Map.entry("notifications/message", "LoggingMessageNotification"),
            Map.entry("notifications/tools/list_changed", "ToolListChangedNotification"),
            Map.entry("notifications/prompts/list_changed", "PromptListChangedNotification"),
            Map.entry("notifications/resources/list_changed", "ResourceListChangedNotification"),
            Map.entry("notifications/resources/updated", "ResourceUpdatedNotification"),
            Map.entry("notifications/subscriptions/acknowledged", "SubscriptionsAcknowledgedNotification"),
            Map.entry("notifications/cancelled", "CancelledNotification"));

    private final JsonRpcCodec codec = JsonRpcCodec.withDefaults();
    private final ServerChannel channel;
    private final AtomicLong nextId = new AtomicLong(1);
    private final List<Sent> sent = new ArrayList<>();
    private final Map<String, String> methods = new ConcurrentHashMap<>();
    private final List<String> violations = new ArrayList<>();
    private volatile String schemaRevision;
    private volatile ObjectNode capabilities = Json.object();
    private volatile Function<JsonNode, JsonNode> answerer;
    private volatile boolean runsNonBlockingHandlersInline;
    private volatile boolean closesOnResponse;
    private volatile java.util.function.Consumer<JsonNode> beforeRecording = m -> {
    };

    Peer(McpServer server) {
        this.channel = server.connect(this);
    }

    ServerChannel channel() {
        return channel;
    }

    /**
     * Checks every message the server sends against this revision's schema (2025-11-25 or 2026-07-28);
     * {@link #close()} reports violations.
     */
    Peer checkedAgainst(String revision) {
        this.schemaRevision = revision;
        return this;
    }

    /** The client capabilities sent with modern requests. */
    Peer capabilities(ObjectNode capabilities) {
        this.capabilities = capabilities;
        return this;
    }

    /** Answers requests the server sends (legacy elicitation, sampling, roots); the function returns the result. */
    Peer answering(Function<JsonNode, JsonNode> answerer) {
        this.answerer = answerer;
        return this;
    }

    /** Lets the server run non-blocking tools on the thread that calls {@code receive}, as stdio does. */
    Peer runningNonBlockingHandlersInline() {
        this.runsNonBlockingHandlersInline = true;
        return this;
    }

    // ------------------------------------------------------------------ the Outbound the server writes to

    @Override
    public boolean runsNonBlockingHandlersInline() {
        return runsNonBlockingHandlersInline;
    }

    @Override
    public void send(JsonRpcMessage message, RequestId relatedTo) {
        JsonNode tree = Json.mapper().readTree(codec.encode(message));
        check(tree);
        beforeRecording.accept(tree);
        synchronized (sent) {
            sent.add(new Sent(tree, relatedTo, false));
            sent.notifyAll();
        }
        if (closesOnResponse && message instanceof JsonRpcResponse) {
            channel.close();
        }
        Function<JsonNode, JsonNode> a = answerer;
        if (tree.has("method") && tree.has("id") && a != null) {
            Thread.ofVirtual().start(() -> {
                JsonNode result = a.apply(tree);
                raw("{\"jsonrpc\":\"2.0\",\"id\":" + tree.get("id") + ",\"result\":" + result + "}");
            });
        }
    }

    @Override
    public void sendBatch(List<? extends JsonRpcMessage> responses) {
        JsonNode array = Json.mapper().readTree(codec.encodeBatch(responses));
        synchronized (sent) {
            sent.add(new Sent(array, null, true));
            sent.notifyAll();
        }
    }

    // ------------------------------------------------------------------ sending

    RequestId nextId() {
        return RequestId.of(nextId.getAndIncrement());
    }

    /** Sends a request as is (no _meta added). */
    RequestId send(RequestId id, String method, ObjectNode params) {
        methods.putIfAbsent(key(id), method);
        channel.receive(new JsonRpcRequest(id, method, params));
        return id;
    }

    RequestId send(String method, ObjectNode params) {
        return send(nextId(), method, params);
    }

    /** Sends a request and waits for its response. */
    JsonNode request(String method, ObjectNode params) {
        return response(send(method, params));
    }

    /** Params with the 2026-07-28 per-request _meta filled in (keys already present are kept). */
    ObjectNode modern(ObjectNode params) {
        ObjectNode p = params == null ? Json.object() : params.deepCopy();
        ObjectNode meta = p.has("_meta") ? (ObjectNode) p.get("_meta") : p.putObject("_meta");
        if (!meta.has(META_VERSION)) {
            meta.put(META_VERSION, MODERN);
        }
        if (!meta.has(META_CAPABILITIES)) {
            meta.set(META_CAPABILITIES, capabilities.deepCopy());
        }
        if (!meta.has(META_CLIENT_INFO)) {
            meta.putObject(META_CLIENT_INFO).put("name", "peer").put("version", "1.0.0");
        }
        return p;
    }

    JsonNode modernRequest(String method, ObjectNode params) {
        return request(method, modern(params));
    }

    /** Legacy handshake: initialize, then notifications/initialized. Returns the initialize result. */
    JsonNode initialize(String version) {
        return initialize(version, Json.object());
    }

    JsonNode initialize(String version, ObjectNode clientCapabilities) {
        ObjectNode params = Json.object();
        params.put("protocolVersion", version);
        params.set("capabilities", clientCapabilities);
        params.putObject("clientInfo").put("name", "peer").put("version", "1.0.0");
        JsonNode response = request("initialize", params);
        notify("notifications/initialized", null);
        return response;
    }

    void notify(String method, ObjectNode params) {
        channel.receive(new JsonRpcNotification(method, params));
    }

    void cancel(RequestId id, String reason) {
        ObjectNode p = Json.object();
        switch (id) {
            case RequestId.NumberId n -> p.put("requestId", n.value());
            case RequestId.StringId s -> p.put("requestId", s.value());
        }
        if (reason != null) {
            p.put("reason", reason);
        }
        notify("notifications/cancelled", p);
    }

    /** Feeds bytes through the codec, as a transport does. */
    void raw(String json) {
        channel.receive(codec.decode(json.getBytes(StandardCharsets.UTF_8)));
    }

    // ------------------------------------------------------------------ waiting and looking

    /** Waits for the response (result or error) to {@code id}. */
    JsonNode response(RequestId id) {
        return await(m -> isResponse(m) && idMatches(m.get("id"), id), "a response to " + id);
    }

    JsonNode result(RequestId id) {
        JsonNode r = response(id);
        assertThat(r.has("result")).as("expected a result: %s", r).isTrue();
        return r.get("result");
    }

    /** Waits for the first message (already received or later) that matches. */
    JsonNode await(Predicate<JsonNode> predicate, String what) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        synchronized (sent) {
            while (true) {
                for (Sent s : sent) {
                    if (!s.batch() && predicate.test(s.message())) {
                        return s.message();
                    }
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError("No " + what + " within " + WAIT + "; received: " + messages());
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(sent, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError("interrupted");
                }
            }
        }
    }

    JsonNode awaitNotification(String method) {
        return await(m -> !m.has("id") && method.equals(m.path("method").asString("")), method);
    }

    /** Waits until {@code count} notifications of {@code method} have arrived. */
    List<JsonNode> awaitNotifications(String method, int count) {
        await(m -> notifications(method).size() >= count, count + " x " + method);
        return notifications(method);
    }

    /** Waits for the next batch answer. */
    JsonNode awaitBatch() {
        long deadline = System.nanoTime() + WAIT.toNanos();
        synchronized (sent) {
            while (true) {
                for (Sent s : sent) {
                    if (s.batch()) {
                        return s.message();
                    }
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError("No batch answer within " + WAIT + "; received: " + messages());
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(sent, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError("interrupted");
                }
            }
        }
    }

    List<Sent> sent() {
        synchronized (sent) {
            return List.copyOf(sent);
        }
    }

    List<JsonNode> messages() {
        return sent().stream().map(Sent::message).toList();
    }

    List<JsonNode> notifications(String method) {
        return messages().stream().filter(m -> !m.has("id") && method.equals(m.path("method").asString(""))).toList();
    }

    List<JsonNode> responsesTo(RequestId id) {
        return messages().stream().filter(m -> isResponse(m) && idMatches(m.get("id"), id)).toList();
    }

    /** Messages that reference {@code id}: its responses and anything the server said relates to it. */
    List<Sent> relatedTo(RequestId id) {
        return sent().stream().filter(s -> id.equals(s.relatedTo())
                || (isResponse(s.message()) && idMatches(s.message().get("id"), id))).toList();
    }

    List<String> violations() {
        synchronized (violations) {
            return List.copyOf(violations);
        }
    }

    static boolean isResponse(JsonNode m) {
        return m.has("result") || m.has("error");
    }

    static boolean idMatches(JsonNode node, RequestId id) {
        if (node == null) {
            return false;
        }
        return switch (id) {
            case RequestId.NumberId n -> node.isIntegralNumber() && node.longValue() == n.value();
            case RequestId.StringId s -> node.isString() && node.stringValue().equals(s.value());
        };
    }

    private static String key(RequestId id) {
        return id.toString();
    }

    private void check(JsonNode message) {
        String revision = schemaRevision;
        if (revision == null) {
            return;
        }
        List<String> errors = new ArrayList<>();
        if (isResponse(message)) {
            JsonNode id = message.get("id");
            if (message.has("result") && id != null) {
                String method = methods.get(id.isString() ? '"' + id.stringValue() + '"' : id.toString());
                JsonNode result = message.get("result");
                String type = "input_required".equals(result.path("resultType").asString("")) ? "InputRequiredResult"
                        : method == null ? null : RESULT_TYPES.get(method);
                if (type != null) {
                    errors.addAll(SpecSchemas.validate(revision, type, result));
                }
            } else if (message.has("error") && id != null && !id.isNull()) {
                errors.addAll(SpecSchemas.validate(revision, "JSONRPCErrorResponse", message));
            }
        } else if (message.has("method") && !message.has("id")) {
            String type = NOTIFICATION_TYPES.get(message.get("method").asString(""));
            if (type == null) {
                errors.add("unexpected notification");
            } else {
                errors.addAll(SpecSchemas.validate(revision, type, message));
            }
        }
        if (!errors.isEmpty()) {
            synchronized (violations) {
                errors.forEach(e -> violations.add(e + " in " + message));
            }
        }
    }

    /**
     * Closes the channel once it has sent a response, from within that send, as Streamable HTTP's 2026-07-28 channel
     * does (one request each).
     */
    void closeOnResponses() {
        closesOnResponse = true;
    }

    /**
     * Runs {@code action} on each message the server sends before it is recorded as sent, as a transport slow to
     * deliver it: what the server sends meanwhile from other threads is recorded first unless the server waits.
     */
    void beforeRecording(java.util.function.Consumer<JsonNode> action) {
        beforeRecording = action;
    }

    /** Closes the channel; fails if the server broke the schema it was checked against. */
    @Override
    public void close() {
        channel.close();
        assertThat(violations()).as("schema violations").isEmpty();
    }
}
