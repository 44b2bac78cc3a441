package dev.tern.testing;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Predicate;

import dev.tern.protocol.Json;
import dev.tern.protocol.JsonRpcCodec;
import dev.tern.protocol.JsonRpcMessage;
import dev.tern.protocol.McpMeta;
import dev.tern.protocol.RequestId;
import dev.tern.server.McpServer;
import dev.tern.server.Outbound;
import dev.tern.server.ServerChannel;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * An in-memory MCP client for tests: it talks to a {@link McpServer} through a real channel, encodes every message
 * the server sends to bytes and back, and checks each against the official schema of the revision it speaks.
 * {@link #close()} fails if any message was invalid. Thread-safe.
 */
public final class TestClient implements AutoCloseable {
    public static final String MODERN = "2026-07-28";
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final JsonRpcCodec codec = JsonRpcCodec.withDefaults();
    private final ServerChannel channel;
    private final String version;
    private final boolean modern;
    private final AtomicLong nextId = new AtomicLong(1);
    private final Map<String, String> methodsById = new ConcurrentHashMap<>();
    private final List<JsonNode> received = new CopyOnWriteArrayList<>();
    private final List<String> violations = new CopyOnWriteArrayList<>();
    private volatile ObjectNode capabilities = Json.object();
    private volatile Function<JsonNode, JsonNode> serverRequestAnswerer;
    private volatile boolean validate = true;

    private TestClient(McpServer server, String version) {
        this.version = version;
        this.modern = version.equals(MODERN);
        this.channel = server.connect(new Outbound() {
            @Override
            public void send(JsonRpcMessage message, RequestId relatedTo) {
                onServerMessage(codec.encode(message));
            }

            @Override
            public void sendBatch(List<? extends JsonRpcMessage> responses) {
                JsonNode array = Json.mapper().readTree(codec.encodeBatch(responses));
                for (JsonNode item : array) {
                    onServerMessage(Json.mapper().writeValueAsBytes(item));
                }
            }
        });
    }

    /** A client that will speak a legacy revision; call {@link #initialize()} first. */
    public static TestClient legacy(McpServer server, String version) {
        return new TestClient(server, version);
    }

    /** A 2026-07-28 client: every request carries the per-request {@code _meta}. */
    public static TestClient modern(McpServer server) {
        return new TestClient(server, MODERN);
    }

    public String version() {
        return version;
    }

    /** The capabilities declared on initialize (legacy) or on every request (modern). */
    public TestClient capabilities(ObjectNode capabilities) {
        this.capabilities = capabilities;
        return this;
    }

    /** Answers server-to-client requests: gets the request, returns the result (or throws to send nothing). */
    public TestClient onServerRequest(Function<JsonNode, JsonNode> answerer) {
        this.serverRequestAnswerer = answerer;
        return this;
    }

    /** Stops checking messages against the schema (for tests that provoke deliberately invalid exchanges). */
    public TestClient withoutSchemaChecks() {
        this.validate = false;
        return this;
    }

    public JsonNode initialize() {
        ObjectNode params = Json.object();
        params.put("protocolVersion", version);
        params.set("capabilities", capabilities);
        params.putObject("clientInfo").put("name", "tern-test-client").put("version", "1.0.0");
        Response response = request("initialize", params);
        notify("notifications/initialized", null);
        return response.result();
    }

    /** Sends a request and waits for its response. */
    public Response request(String method, ObjectNode params) {
        return await(send(method, params));
    }

    public Response callTool(String name, ObjectNode arguments) {
        ObjectNode params = Json.object();
        params.put("name", name);
        if (arguments != null) {
            params.set("arguments", arguments);
        }
        return request("tools/call", params);
    }

    /** Sends a request without waiting. */
    public RequestId send(String method, ObjectNode params) {
        RequestId id = RequestId.of(nextId.getAndIncrement());
        sendWithId(id, method, params);
        return id;
    }

    public void sendWithId(RequestId id, String method, ObjectNode params) {
        ObjectNode p = params == null ? (modern ? Json.object() : null) : params.deepCopy();
        if (modern && p != null) {
            ObjectNode meta = p.has(McpMeta.KEY) ? (ObjectNode) p.get(McpMeta.KEY) : p.putObject(McpMeta.KEY);
            if (!meta.has(McpMeta.PROTOCOL_VERSION)) {
                meta.put(McpMeta.PROTOCOL_VERSION, MODERN);
            }
            if (!meta.has(McpMeta.CLIENT_CAPABILITIES)) {
                meta.set(McpMeta.CLIENT_CAPABILITIES, capabilities);
            }
            if (!meta.has(McpMeta.CLIENT_INFO)) {
                meta.putObject(McpMeta.CLIENT_INFO).put("name", "tern-test-client").put("version", "1.0.0");
            }
        }
        methodsById.put(id.toString(), method);
        channel.receive(new dev.tern.protocol.JsonRpcRequest(id, method, p));
    }

    public void notify(String method, ObjectNode params) {
        channel.receive(new dev.tern.protocol.JsonRpcNotification(method, params));
    }

    public void cancel(RequestId id, String reason) {
        ObjectNode p = Json.object();
        switch (id) {
            case RequestId.NumberId n -> p.put("requestId", n.value());
            case RequestId.StringId s -> p.put("requestId", s.value());
        }
        p.put("reason", reason);
        notify("notifications/cancelled", p);
    }

    /** Feeds raw bytes through the codec, as a transport would. */
    public void sendRaw(String json) {
        channel.receive(codec.decode(json.getBytes(StandardCharsets.UTF_8)));
    }

    public Response await(RequestId id) {
        JsonNode message = awaitMessage(m -> (m.has("result") || m.has("error")) && idMatches(m.get("id"), id));
        return new Response(message);
    }

    /** Waits for the first message (received so far or later) that matches. */
    public JsonNode awaitMessage(Predicate<JsonNode> predicate) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        synchronized (received) {
            while (true) {
                for (JsonNode m : received) {
                    if (predicate.test(m)) {
                        return m;
                    }
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError("No matching message within " + WAIT + "; received: " + received);
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(received, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError("interrupted");
                }
            }
        }
    }

    public JsonNode awaitNotification(String method) {
        return awaitMessage(m -> !m.has("id") && method.equals(m.path("method").asString("")));
    }

    /** Every message the server sent, in order. */
    public List<JsonNode> received() {
        return List.copyOf(received);
    }

    public List<JsonNode> notifications(String method) {
        List<JsonNode> found = new ArrayList<>();
        for (JsonNode m : received) {
            if (!m.has("id") && method.equals(m.path("method").asString(""))) {
                found.add(m);
            }
        }
        return found;
    }

    public List<String> schemaViolations() {
        return List.copyOf(violations);
    }

    public ServerChannel channel() {
        return channel;
    }

    private static boolean idMatches(JsonNode node, RequestId id) {
        if (node == null) {
            return false;
        }
        return switch (id) {
            case RequestId.NumberId n -> node.isIntegralNumber() && node.longValue() == n.value();
            case RequestId.StringId s -> node.isString() && node.stringValue().equals(s.value());
        };
    }

    private void onServerMessage(byte[] bytes) {
        JsonNode message = Json.mapper().readTree(bytes);
        if (validate) {
            String answering = null;
            JsonNode id = message.get("id");
            if (id != null && !id.isNull() && !message.has("method")) {
                answering = methodsById.get(id.isString() ? '"' + id.stringValue() + '"' : id.toString());
            }
            JsonNode checked = message;
            if (message.has("error") && id != null && id.isNull()) {
                // JSON-RPC 2.0 requires "id": null when the request's id could not be read. The MCP schemas cannot
                // express it: 2025-11-25 and later model it as an absent id, older revisions require an id. Check
                // the rest of the message as the schema models it.
                checked = message.deepCopy();
                if (version.compareTo("2025-11-25") >= 0) {
                    ((ObjectNode) checked).remove("id");
                } else {
                    ((ObjectNode) checked).put("id", 0);
                }
            }
            String revision = version.equals("2024-11-05") ? "2025-03-26" : version;
            for (String v : WireValidator.validate(revision, checked, answering)) {
                violations.add(v + " in " + message);
            }
        }
        if (message.has("method") && message.has("id")) {
            Function<JsonNode, JsonNode> answerer = serverRequestAnswerer;
            if (answerer != null) {
                Thread.ofVirtual().start(() -> {
                    JsonNode result = answerer.apply(message);
                    String reply = "{\"jsonrpc\":\"2.0\",\"id\":" + message.get("id") + ",\"result\":" + result + "}";
                    channel.receive(codec.decode(reply.getBytes(StandardCharsets.UTF_8)));
                });
            }
        }
        synchronized (received) {
            received.add(message);
            received.notifyAll();
        }
    }

    @Override
    public void close() {
        channel.close();
        if (!violations.isEmpty()) {
            throw new AssertionError("The server sent messages that break the MCP " + version + " schema: " + violations);
        }
    }

    /** A response: a result or an error. */
    public record Response(JsonNode message) {
        public boolean isError() {
            return message.has("error");
        }

        public JsonNode result() {
            if (!message.has("result")) {
                throw new AssertionError("Expected a result, got " + message);
            }
            return message.get("result");
        }

        public JsonNode error() {
            if (!message.has("error")) {
                throw new AssertionError("Expected an error, got " + message);
            }
            return message.get("error");
        }

        public int errorCode() {
            return error().path("code").asInt();
        }
    }
}
