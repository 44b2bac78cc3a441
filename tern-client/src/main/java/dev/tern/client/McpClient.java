package dev.tern.client;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import dev.tern.client.http.ClientTls;
import dev.tern.client.http.ConnectionListener;
import dev.tern.client.http.HttpClientEngine;
import dev.tern.client.http.HttpProtocol;
import dev.tern.client.http.WebSocketClient;
import dev.tern.protocol.ErrorCodes;
import dev.tern.protocol.McpMeta;
import dev.tern.protocol.Json;
import dev.tern.protocol.JsonRpcCodec;
import dev.tern.protocol.JsonRpcNotification;
import dev.tern.protocol.JsonRpcRequest;
import dev.tern.protocol.McpException;
import dev.tern.protocol.ProtocolVersion;
import dev.tern.protocol.RequestId;
import dev.tern.protocol.MessageCodec;
import dev.tern.protocol.WireFormat;
import dev.tern.protocol.model.CallToolResult;
import dev.tern.protocol.model.GetPromptResult;
import dev.tern.protocol.model.Implementation;
import dev.tern.protocol.model.LoggingLevel;
import dev.tern.protocol.model.PromptDefinition;
import dev.tern.protocol.model.ReadResourceResult;
import dev.tern.protocol.model.ResourceDefinition;
import dev.tern.protocol.model.ToolDefinition;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import org.jspecify.annotations.Nullable;

/**
 * An MCP client for one server, over Streamable HTTP, WebSocket or a child process's stdio, in either protocol era.
 *
 * <pre>{@code
 * try (McpClient client = McpClient.http(URI.create("http://127.0.0.1:8080/mcp")).era(Era.AUTO).build()) {
 *     CallToolResult user = client.callTool("get_user", Map.of("id", 7)).join();
 * }
 * }</pre>
 *
 * Every method returns a future: it fails with {@link McpException} for a JSON-RPC error response, with
 * {@link McpClientException} when no response came, or with a {@link java.util.concurrent.TimeoutException} after
 * the request timeout. Futures complete on I/O threads: do not block in callbacks attached to them. Thread-safe;
 * many requests may be in flight at once.
 */
public final class McpClient implements AutoCloseable {
    /** The path of an endpoint given without one. */
    public static final String DEFAULT_PATH = "/mcp";
    /** The path of a WebSocket endpoint given without one. */
    public static final String DEFAULT_WEBSOCKET_PATH = "/mcp/ws";

    private final McpTransport transport;
    private final JsonMapper mapper = Json.mapper();
    private final Era requestedEra;
    private final Implementation clientInfo;
    private final ObjectNode capabilities;
    private final Duration requestTimeout;
    private final Consumer<JsonRpcNotification> listener;
    private final LoggingLevel logLevel;
    private final ObjectNode modernMeta;
    private final @Nullable ClientTracer tracer;
    private final AtomicLong nextId = new AtomicLong(1);
    private final Map<String, Consumer<JsonNode>> progressListeners = new ConcurrentHashMap<>();
    private final Map<String, List<ParamHeaders.Param>> toolHeaders = new ConcurrentHashMap<>();
    private volatile CompletableFuture<Era> connecting;
    private volatile Era era;
    /** The era is decided and the legacy session, if any, is open. */
    private volatile boolean ready;
    private volatile ProtocolVersion version;
    private volatile JsonNode serverInfo;
    /** Where results marked {@code public} and {@code private} are kept; both null when caching is off. */
    private final ClientCache publicResults;
    private final ClientCache privateResults;
    /** Names the server in the keys of a cache shared with clients of other servers. */
    private final String serverKey;

    private McpClient(Builder<?> b, String serverKey,
            java.util.function.Function<Consumer<JsonRpcNotification>, McpTransport> transport) {
        this.serverKey = serverKey;
        this.publicResults = b.cache;
        this.privateResults = b.cache == null ? null : ClientCache.create(b.privateCacheEntries);
        this.requestedEra = b.era;
        this.clientInfo = b.clientInfo;
        this.capabilities = b.capabilities;
        this.requestTimeout = b.requestTimeout;
        this.listener = b.listener;
        this.logLevel = b.logLevel;
        this.tracer = b.tracer;
        this.modernMeta = Json.object();
        modernMeta.put(McpMeta.PROTOCOL_VERSION, ProtocolVersion.LATEST.id());
        modernMeta.set(McpMeta.CLIENT_INFO, mapper.valueToTree(clientInfo));
        modernMeta.set(McpMeta.CLIENT_CAPABILITIES, capabilities);
        if (logLevel != null) {
            modernMeta.put(McpMeta.LOG_LEVEL, logLevel.wire());
        }
        this.transport = transport.apply(this::onNotification);
        if (requestedEra != Era.AUTO) {
            this.era = requestedEra;
            this.version = requestedEra == Era.MODERN ? ProtocolVersion.LATEST : null;
        }
    }

    /**
     * A client of the Streamable HTTP endpoint at {@code endpoint} (http or https). A URI without a path, such as
     * {@code http://127.0.0.1:8080}, means its {@value #DEFAULT_PATH}, where MCP servers conventionally answer.
     */
    public static HttpBuilder http(URI endpoint) {
        return new HttpBuilder(withDefaultPath(Objects.requireNonNull(endpoint, "endpoint"), DEFAULT_PATH));
    }

    static URI withDefaultPath(URI endpoint) {
        return withDefaultPath(endpoint, DEFAULT_PATH);
    }

    static URI withDefaultPath(URI endpoint, String defaultPath) {
        String path = endpoint.getRawPath();
        if (path != null && !path.isEmpty() || endpoint.isOpaque()) {
            return endpoint;
        }
        return URI.create(endpoint.getScheme() + "://" + endpoint.getRawAuthority() + defaultPath
                + (endpoint.getRawQuery() == null ? "" : "?" + endpoint.getRawQuery()));
    }

    /**
     * A client of the WebSocket endpoint at {@code endpoint} ({@code ws://} or {@code wss://}, e.g.
     * {@code ws://127.0.0.1:8080/mcp/ws}): one long-lived connection, subprotocol {@code mcp}. A URI without a path
     * means its {@value #DEFAULT_WEBSOCKET_PATH}, where Tern serves it.
     */
    public static WebSocketBuilder webSocket(URI endpoint) {
        return new WebSocketBuilder(withDefaultPath(Objects.requireNonNull(endpoint, "endpoint"),
                DEFAULT_WEBSOCKET_PATH));
    }

    /** Whether {@code endpoint} names a WebSocket endpoint ({@code ws://} or {@code wss://}). */
    public static boolean isWebSocket(URI endpoint) {
        String scheme = endpoint.getScheme();
        return "ws".equalsIgnoreCase(scheme) || "wss".equalsIgnoreCase(scheme);
    }

    /** A client that starts {@code command} and speaks to it over its stdin and stdout. */
    public static StdioBuilder stdio(List<String> command) {
        return new StdioBuilder(command);
    }

    /**
     * Decides the era (with {@link Era#AUTO}) and opens the legacy session if there is one. Requests do this by
     * themselves; calling it first only moves the cost. Once it succeeded it is not repeated; after a failure (the
     * server was down, say) the next call tries again.
     */
    public synchronized CompletableFuture<Era> connect() {
        if (connecting == null || connecting.isCompletedExceptionally()) {
            connecting = switch (requestedEra) {
                case MODERN -> CompletableFuture.completedFuture(Era.MODERN);
                case LEGACY -> initialize().thenApply(v -> Era.LEGACY);
                case AUTO -> probe();
            };
            connecting.thenAccept(e -> {
                era = e;
                ready = true;
            });
        }
        return connecting;
    }

    /** The era in use: {@link Era#AUTO} until {@link #connect()} has decided. */
    public Era era() {
        Era e = era;
        return e == null ? Era.AUTO : e;
    }

    /** The protocol version in use, or {@code null} before it is known. */
    public @Nullable ProtocolVersion protocolVersion() {
        return version;
    }

    /** The legacy {@code initialize} result's serverInfo, or the modern {@code server/discover} result; may be null. */
    public @Nullable JsonNode serverInfo() {
        return serverInfo;
    }

    // ---------------------------------------------------------------- typed requests

    /** Every tool, following {@code nextCursor} through all pages. */
    public CompletableFuture<List<ToolDefinition>> listTools() {
        return listAll("tools/list", "tools", ToolDefinition.class, new ArrayList<>(), null).thenApply(tools -> {
            if (!transport.http()) {
                return tools;
            }
            List<ToolDefinition> valid = new ArrayList<>(tools.size());
            for (ToolDefinition t : tools) {
                List<ParamHeaders.Param> params = ParamHeaders.of(t.inputSchema());
                if (params == null) {
                    toolHeaders.remove(t.name());
                    continue;
                }
                toolHeaders.put(t.name(), params);
                valid.add(t);
            }
            return valid;
        });
    }

    /** Calls a tool; {@code arguments} is a {@link JsonNode}, a map, a record or {@code null}. */
    public CompletableFuture<CallToolResult> callTool(String name, @Nullable Object arguments) {
        return callTool(name, arguments, null);
    }

    /**
     * Calls a tool and passes the params of each {@code notifications/progress} it reports to {@code progress} (on an
     * I/O thread).
     */
    public CompletableFuture<CallToolResult> callTool(String name, @Nullable Object arguments,
            @Nullable Consumer<JsonNode> progress) {
        Objects.requireNonNull(name, "name");
        ObjectNode params = Json.object();
        params.put("name", name);
        JsonNode args = arguments == null ? null : arguments instanceof JsonNode n ? n : mapper.valueToTree(arguments);
        if (args != null) {
            params.set("arguments", args);
        }
        return callToolWithRetry(params, args, progress, true).thenApply(r -> mapper.treeToValue(r, CallToolResult.class));
    }

    public CompletableFuture<ReadResourceResult> readResource(String uri) {
        ObjectNode params = Json.object().put("uri", Objects.requireNonNull(uri, "uri"));
        return request("resources/read", params).thenApply(r -> mapper.treeToValue(r, ReadResourceResult.class));
    }

    /** Every resource, through all pages. */
    public CompletableFuture<List<ResourceDefinition>> listResources() {
        return listAll("resources/list", "resources", ResourceDefinition.class, new ArrayList<>(), null);
    }

    /** Every prompt, through all pages. */
    public CompletableFuture<List<PromptDefinition>> listPrompts() {
        return listAll("prompts/list", "prompts", PromptDefinition.class, new ArrayList<>(), null);
    }

    public CompletableFuture<GetPromptResult> getPrompt(String name, @Nullable Map<String, String> arguments) {
        ObjectNode params = Json.object().put("name", Objects.requireNonNull(name, "name"));
        if (arguments != null) {
            params.set("arguments", mapper.valueToTree(arguments));
        }
        return request("prompts/get", params).thenApply(r -> mapper.treeToValue(r, GetPromptResult.class));
    }

    /**
     * Checks the server answers: {@code ping} in a legacy session; 2026-07-28 has no ping, so there it sends
     * {@code server/discover}.
     */
    public CompletableFuture<Void> ping() {
        return decided().thenCompose(e -> request(e == Era.MODERN ? "server/discover" : "ping", null))
                .thenApply(r -> null);
    }

    // ---------------------------------------------------------------- raw requests

    /** Sends any request; completes with its result, or fails with {@link McpException} for an error response. */
    public CompletableFuture<JsonNode> request(String method, @Nullable JsonNode params) {
        return send(method, params).thenApply(McpReply::resultOrThrow);
    }

    /**
     * Sends any request and completes with the whole reply, an error response included, with its timing and HTTP
     * headers. Fails only when no response came. Cancelling the returned future (once the era is decided) cancels
     * the request: in 2026-07-28 over HTTP by abandoning its stream, otherwise with {@code notifications/cancelled}.
     */
    public CompletableFuture<McpReply> send(String method, @Nullable JsonNode params) {
        return send(method, params, List.of(), null);
    }

    /** Drops the results this client keeps (see {@link Builder#cache}): its private ones, and this server's public ones. */
    public void invalidateCache() {
        if (publicResults != null) {
            privateResults.invalidateAll();
            publicResults.invalidate(serverKey, null);
        }
    }

    @Override
    public void close() {
        transport.close();
    }

    // ---------------------------------------------------------------- internals

    private CompletableFuture<JsonNode> callToolWithRetry(ObjectNode params, JsonNode args, Consumer<JsonNode> progress,
            boolean mayRetry) {
        String name = params.get("name").stringValue();
        return decided().thenCompose(e -> {
            List<String> headers = e == Era.MODERN && transport.http()
                    ? ParamHeaders.headers(toolHeaders.getOrDefault(name, List.of()), args) : List.of();
            return send("tools/call", params, headers, progress);
        }).thenCompose(reply -> {
            if (mayRetry && reply.isError() && reply.error().code() == ErrorCodes.HEADER_MISMATCH && era == Era.MODERN
                    && transport.http()) {
                // the tool's x-mcp-header parameters may have changed: learn them again and retry once
                return listTools().thenCompose(t -> callToolWithRetry(params, args, progress, false));
            }
            return CompletableFuture.completedFuture(reply.resultOrThrow());
        });
    }

    private CompletableFuture<Era> decided() {
        return ready ? CompletableFuture.completedFuture(era) : connect();
    }

    private <T> CompletableFuture<List<T>> listAll(String method, String field, Class<T> type, List<T> into,
            String cursor) {
        ObjectNode params = null;
        if (cursor != null) {
            params = Json.object().put("cursor", cursor);
        }
        return request(method, params).thenCompose(result -> {
            for (JsonNode item : result.path(field)) {
                into.add(mapper.treeToValue(item, type));
            }
            JsonNode next = result.get("nextCursor");
            if (next != null && next.isString() && !next.stringValue().isEmpty() && into.size() < 1_000_000) {
                return listAll(method, field, type, into, next.stringValue());
            }
            return CompletableFuture.completedFuture(into);
        });
    }

    private CompletableFuture<McpReply> send(String method, JsonNode params, List<String> headers,
            Consumer<JsonNode> progress) {
        ClientCache.Key key = publicResults == null || progress != null ? null
                : ClientCache.key(serverKey, method, params);
        if (key == null) {
            return sendUncached(method, params, headers, progress);
        }
        JsonNode kept = privateResults.get(key);
        if (kept == null) {
            kept = publicResults.get(key);
        }
        if (kept != null) {
            long now = System.nanoTime();
            return CompletableFuture.completedFuture(new McpReply(kept, null, null, now, now, now));
        }
        return sendUncached(method, params, headers, progress).thenApply(reply -> {
            if (!reply.isError()) {
                if (ClientCache.cacheable(reply.result(), "public")) {
                    publicResults.put(key, reply.result());
                } else if (ClientCache.cacheable(reply.result(), "private")) {
                    privateResults.put(key, reply.result());
                }
            }
            return reply;
        });
    }

    private CompletableFuture<McpReply> sendUncached(String method, JsonNode params, List<String> headers,
            Consumer<JsonNode> progress) {
        Objects.requireNonNull(method, "method");
        if (params != null && !params.isObject()) {
            throw new IllegalArgumentException("params: " + params.getNodeType() + " (expected: an object or null)");
        }
        if (ready || requestedEra == Era.MODERN) {
            return sendNow(era, method, (ObjectNode) params, headers, progress);
        }
        return connect().thenCompose(decided -> sendNow(decided, method, (ObjectNode) params, headers, progress));
    }

    private CompletableFuture<McpReply> sendNow(Era e, String method, ObjectNode params, List<String> headers,
            Consumer<JsonNode> progress) {
        RequestId id = RequestId.of(nextId.getAndIncrement());
        String token = progress == null ? null : "p" + id;
        ClientTracer.Call traced = tracer == null ? null : tracer.start(method, target(method, params), transport.http());
        ObjectNode sent = withMeta(e == Era.MODERN, params, token, traced);
        if (token != null) {
            progressListeners.put(token, progress);
        }
        CompletableFuture<McpReply> reply = transport.send(new JsonRpcRequest(id, method, sent), version, headers);
        // over HTTP the engine's response timeout is the request timeout
        if (!requestTimeout.isZero() && !transport.http()) {
            reply = reply.orTimeout(requestTimeout.toNanos(), TimeUnit.NANOSECONDS);
        }
        if (token != null) {
            reply.whenComplete((r, x) -> progressListeners.remove(token));
        }
        if (traced != null) {
            reply.whenComplete(traced::end);
        }
        return reply;
    }

    private static @Nullable String target(String method, @Nullable ObjectNode params) {
        JsonNode name = params == null || !(method.equals("tools/call") || method.equals("prompts/get"))
                ? null : params.get("name");
        return name != null && name.isString() ? name.stringValue() : null;
    }

    private ObjectNode withMeta(boolean modern, ObjectNode params, String progressToken, ClientTracer.Call traced) {
        if (!modern && progressToken == null && traced == null) {
            return params;
        }
        ObjectNode copy = Json.object();
        if (params != null) {
            copy.setAll(params);
        }
        JsonNode given = copy.get(McpMeta.KEY);
        ObjectNode meta;
        if (given instanceof ObjectNode g) {
            meta = g.deepCopy();
            if (modern) {
                meta.setAll(modernMeta);
            }
        } else if (progressToken != null || traced != null) {
            meta = modern ? modernMeta.deepCopy() : Json.object();
        } else {
            meta = modernMeta;
        }
        if (progressToken != null) {
            meta.put(McpMeta.PROGRESS_TOKEN, progressToken);
        }
        if (traced != null) {
            traced.inject(meta::put);
        }
        copy.set(McpMeta.KEY, meta);
        return copy;
    }

    private void onNotification(JsonRpcNotification n) {
        if (publicResults != null) {
            dropStale(n);
        }
        if (n.method().equals("notifications/progress") && n.params() != null) {
            JsonNode token = n.params().get(McpMeta.PROGRESS_TOKEN);
            Consumer<JsonNode> progress = token == null ? null : progressListeners.get(token.asString());
            if (progress != null) {
                try {
                    progress.accept(n.params());
                } catch (RuntimeException ignored) {
                    // a listener's failure is its own
                }
            }
        }
        if (listener != null) {
            try {
                listener.accept(n);
            } catch (RuntimeException ignored) {
                // a listener's failure is its own
            }
        }
    }

    /** Drops the kept results a notification says are stale. */
    private void dropStale(JsonRpcNotification n) {
        List<String> stale = switch (n.method()) {
            case "notifications/tools/list_changed" -> List.of("tools/list", "tools/call");
            case "notifications/prompts/list_changed" -> List.of("prompts/list", "prompts/get");
            case "notifications/resources/list_changed" ->
                    List.of("resources/list", "resources/templates/list", "resources/read");
            default -> List.of();
        };
        for (String method : stale) {
            privateResults.invalidate(serverKey, method);
            publicResults.invalidate(serverKey, method);
        }
        if (n.method().equals("notifications/resources/updated") && n.params() != null
                && n.params().path("uri").isString()) {
            String uri = n.params().path("uri").stringValue();
            privateResults.invalidateRead(serverKey, uri);
            publicResults.invalidateRead(serverKey, uri);
        }
    }

    /** 2026-07-28 first; an answer or a modern error means modern, anything else legacy. */
    private CompletableFuture<Era> probe() {
        RequestId id = RequestId.of(nextId.getAndIncrement());
        ObjectNode params = withMeta(true, null, null, null);
        Duration probeTimeout = requestTimeout.isZero() || requestTimeout.compareTo(Duration.ofSeconds(10)) > 0
                ? Duration.ofSeconds(10) : requestTimeout;
        return transport.send(new JsonRpcRequest(id, "server/discover", params), ProtocolVersion.LATEST, List.of())
                .orTimeout(probeTimeout.toNanos(), TimeUnit.NANOSECONDS)
                .handle((reply, failure) -> {
                    Throwable cause = failure == null ? null : unwrap(failure);
                    if (cause instanceof McpClientException m && m.httpStatus() == 0
                            || cause != null && !(cause instanceof McpClientException)
                                    && !(cause instanceof java.util.concurrent.TimeoutException)) {
                        // no answer at all (refused, TLS failure, process gone): falling back would not help
                        return CompletableFuture.<Era>failedFuture(cause);
                    }
                    if (failure == null && isModernAnswer(reply)) {
                        version = ProtocolVersion.LATEST;
                        if (reply.result() != null) {
                            serverInfo = reply.result();
                        }
                        return CompletableFuture.completedFuture(Era.MODERN);
                    }
                    return initialize().thenApply(v -> Era.LEGACY);
                }).thenCompose(f -> f);
    }

    private static boolean isModernAnswer(McpReply reply) {
        if (!reply.isError()) {
            return true;
        }
        int code = reply.error().code();
        if (code == ErrorCodes.UNSUPPORTED_PROTOCOL_VERSION) {
            JsonNode supported = reply.error().data() == null ? null : reply.error().data().get("supported");
            if (supported != null) {
                for (JsonNode v : supported) {
                    if (ProtocolVersion.LATEST.id().equals(v.asString())) {
                        return true;
                    }
                }
            }
            return false;
        }
        return code == ErrorCodes.HEADER_MISMATCH || code == ErrorCodes.MISSING_CLIENT_CAPABILITY
                || code == ErrorCodes.METHOD_NOT_FOUND && reply.httpStatus() == 404;
    }

    private CompletableFuture<Void> initialize() {
        ObjectNode params = Json.object();
        params.put("protocolVersion", ProtocolVersion.LATEST_LEGACY.id());
        params.set("capabilities", capabilities);
        params.set("clientInfo", mapper.valueToTree(clientInfo));
        RequestId id = RequestId.of(nextId.getAndIncrement());
        CompletableFuture<McpReply> reply = transport.send(new JsonRpcRequest(id, "initialize", params), null, List.of());
        if (!requestTimeout.isZero()) {
            reply = reply.orTimeout(requestTimeout.toNanos(), TimeUnit.NANOSECONDS);
        }
        return reply.thenCompose(r -> {
            JsonNode result = r.resultOrThrow();
            String negotiated = result.path("protocolVersion").asString("");
            ProtocolVersion v = ProtocolVersion.parse(negotiated).filter(p -> !p.isModern()).orElseThrow(
                    () -> new McpClientException("the server answered initialize with protocol version '" + negotiated
                            + "', which this client does not speak"));
            version = v;
            serverInfo = result.get("serverInfo");
            transport.legacySession(v);
            CompletableFuture<Void> initialized =
                    transport.notify(new JsonRpcNotification("notifications/initialized", null), v);
            if (logLevel == null || !result.path("capabilities").has("logging")) {
                return initialized;
            }
            ObjectNode level = Json.object().put("level", logLevel.wire());
            return initialized.thenCompose(x -> transport.send(new JsonRpcRequest(RequestId.of(nextId.getAndIncrement()),
                    "logging/setLevel", level), v, List.of())).thenAccept(McpReply::resultOrThrow);
        });
    }

    static Throwable unwrap(Throwable t) {
        return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
    }

    /** The transport under this client (for tests). */
    McpTransport transport() {
        return transport;
    }

    // ---------------------------------------------------------------- builders

    /** Options both transports share. */
    public abstract static sealed class Builder<B extends Builder<B>> permits HttpBuilder, WebSocketBuilder, StdioBuilder {
        Era era = Era.AUTO;
        Implementation clientInfo = Implementation.of("tern-client", version());
        ObjectNode capabilities = Json.object();
        Duration requestTimeout = Duration.ofSeconds(60);
        Consumer<JsonRpcNotification> listener;
        LoggingLevel logLevel;
        ClientTracer tracer;
        ClientCache cache;
        long privateCacheEntries = 10_000;

        Builder() {
        }

        @SuppressWarnings("unchecked")
        private B self() {
            return (B) this;
        }

        /** Which era to speak (default {@link Era#AUTO}). */
        public B era(Era era) {
            this.era = Objects.requireNonNull(era, "era");
            return self();
        }

        /** The name and version this client gives the server (default tern-client). */
        public B clientInfo(String name, String version) {
            this.clientInfo = Implementation.of(Objects.requireNonNull(name, "name"), Objects.requireNonNull(version, "version"));
            return self();
        }

        /** The client capabilities to declare (default none). */
        public B capabilities(ObjectNode capabilities) {
            this.capabilities = Objects.requireNonNull(capabilities, "capabilities").deepCopy();
            return self();
        }

        /** How long a request may wait for its response (default 60 s; zero: forever). */
        public B requestTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.isNegative()) {
                throw new IllegalArgumentException("requestTimeout: " + timeout + " (expected: >= 0)");
            }
            this.requestTimeout = timeout;
            return self();
        }

        /** Gets every notification the server sends (progress, log messages, list changes), on an I/O thread. */
        public B notificationListener(Consumer<JsonRpcNotification> listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return self();
        }

        /**
         * Asks for log messages ({@code notifications/message}) at this level and above: per request in 2026-07-28,
         * with {@code logging/setLevel} after {@code initialize} in a legacy session. Default: the server's choice.
         */
        public B logLevel(LoggingLevel level) {
            this.logLevel = Objects.requireNonNull(level, "level");
            return self();
        }

        /** Reports every request this client sends and puts its trace context into the request's {@code _meta}. */
        public B tracer(ClientTracer tracer) {
            this.tracer = Objects.requireNonNull(tracer, "tracer");
            return self();
        }

        /**
         * Keeps the results the server marks cacheable (2026-07-28 {@code ttlMs} and {@code cacheScope}) and answers
         * the same request from them until their time to live ends: {@code public} results in {@code publicResults},
         * which clients of other principals may share, {@code private} ones in a cache of this client's own (a
         * client speaks for one principal). Lists, discovery, reads, prompts and tool calls are kept; a call with a
         * progress listener always goes to the server. List-change and resource-update notifications drop what they
         * make stale. Off unless set: a client that answers from memory is no longer a view of the server, which a
         * tool whose server marks it cacheable by mistake, or a load test, would not want.
         */
        public B cache(ClientCache publicResults) {
            this.cache = Objects.requireNonNull(publicResults, "publicResults");
            return self();
        }

        public abstract McpClient build();

        private static String version() {
            String v = McpClient.class.getPackage().getImplementationVersion();
            return v == null ? "0.1.0" : v;
        }
    }

    /** Options of a Streamable HTTP client; the HTTP engine's are here too. */
    public static final class HttpBuilder extends Builder<HttpBuilder> {
        private HttpClientEngine engine;
        private final HttpClientEngine.Builder engineBuilder;
        private WireFormat format = WireFormat.JSON;

        HttpBuilder(URI endpoint) {
            this.engineBuilder = HttpClientEngine.builder(Objects.requireNonNull(endpoint, "endpoint"));
        }

        /**
         * Writes request bodies in {@code format} (CBOR or MessagePack instead of JSON, the default) and asks for
         * answers in it too; a server that answers in JSON (an SSE stream, a server without the format) is read as
         * well.
         */
        public HttpBuilder encoding(WireFormat format) {
            this.format = Objects.requireNonNull(format, "format");
            return this;
        }

        /** HTTP/1.1 (default), H2C, or H2 over TLS. */
        public HttpBuilder protocol(HttpProtocol protocol) {
            engineBuilder.protocol(protocol);
            return this;
        }

        public HttpBuilder tls(ClientTls tls) {
            engineBuilder.tls(tls);
            return this;
        }

        /** Trusts any server certificate: development servers with self-signed certificates only. */
        public HttpBuilder insecure() {
            engineBuilder.tls(ClientTls.insecure());
            return this;
        }

        public HttpBuilder maxConnections(int max) {
            engineBuilder.maxConnections(max);
            return this;
        }

        public HttpBuilder maxConcurrentStreams(int max) {
            engineBuilder.maxConcurrentStreams(max);
            return this;
        }

        public HttpBuilder connectTimeout(Duration timeout) {
            engineBuilder.connectTimeout(timeout);
            return this;
        }

        public HttpBuilder ioThreads(int threads) {
            engineBuilder.ioThreads(threads);
            return this;
        }

        public HttpBuilder connectionListener(ConnectionListener listener) {
            engineBuilder.connectionListener(listener);
            return this;
        }

        /**
         * Sends through an engine the caller made (and closes); the engine options above are then ignored. Its
         * base URI is the MCP endpoint, and its response timeout bounds each request.
         */
        public HttpBuilder engine(HttpClientEngine engine) {
            this.engine = Objects.requireNonNull(engine, "engine");
            return this;
        }

        @Override
        public McpClient build() {
            boolean owns = engine == null;
            HttpClientEngine e = owns ? engineBuilder.responseTimeout(requestTimeout).build() : engine;
            return new McpClient(this, e.baseUri().toString(), notifications -> new HttpMcpTransport(e, owns, JsonRpcCodec.withDefaults(),
                    format, notifications));
        }
    }

    /** Options of a WebSocket client. */
    public static final class WebSocketBuilder extends Builder<WebSocketBuilder> {
        private final URI endpoint;
        private final WebSocketClient.Builder connection;
        private WireFormat format = WireFormat.JSON;

        WebSocketBuilder(URI endpoint) {
            this.endpoint = endpoint;
            this.connection = WebSocketClient.builder(endpoint);
        }

        /**
         * Speaks {@code format}: JSON in text frames (subprotocol {@code mcp}, the default), CBOR or MessagePack in
         * binary frames ({@code mcp.cbor}, {@code mcp.msgpack}); a server without it refuses the upgrade.
         */
        public WebSocketBuilder encoding(WireFormat format) {
            this.format = Objects.requireNonNull(format, "format");
            connection.subprotocol(format.subprotocol());
            return this;
        }

        public WebSocketBuilder tls(ClientTls tls) {
            connection.tls(tls);
            return this;
        }

        /** Trusts any server certificate: development servers with self-signed certificates only. */
        public WebSocketBuilder insecure() {
            connection.tls(ClientTls.insecure());
            return this;
        }

        public WebSocketBuilder connectTimeout(Duration timeout) {
            connection.connectTimeout(timeout);
            return this;
        }

        /**
         * Opens the WebSocket on an HTTP/2 stream (RFC 8441 extended CONNECT; default: off, the HTTP/1.1 upgrade):
         * h2 by ALPN over {@code wss://}, h2c with prior knowledge over {@code ws://}. A server that does not offer
         * it gets the HTTP/1.1 upgrade on a new connection instead.
         */
        public WebSocketBuilder http2(boolean enabled) {
            connection.http2(enabled);
            return this;
        }

        @Override
        public McpClient build() {
            return new McpClient(this, endpoint.toString(), notifications -> new WebSocketMcpTransport(endpoint, connection,
                    MessageCodec.of(format, JsonRpcCodec.withDefaults()), notifications));
        }
    }

    /** Options of a client that starts its server as a child process. */
    public static final class StdioBuilder extends Builder<StdioBuilder> {
        private final List<String> command;
        private final Map<String, String> environment = new HashMap<>();
        private Path directory;
        private Consumer<String> stderr;

        StdioBuilder(List<String> command) {
            this.command = List.copyOf(Objects.requireNonNull(command, "command"));
            if (this.command.isEmpty()) {
                throw new IllegalArgumentException("command: [] (expected: a program and its arguments)");
            }
        }

        /** Adds an environment variable for the process (it inherits this process's environment). */
        public StdioBuilder environment(String name, String value) {
            environment.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
            return this;
        }

        /** The working directory of the process (default: this one's). */
        public StdioBuilder directory(Path directory) {
            this.directory = Objects.requireNonNull(directory, "directory");
            return this;
        }

        /** Gets each line the process writes to stderr (default: kept only for error messages). */
        public StdioBuilder stderr(Consumer<String> lines) {
            this.stderr = Objects.requireNonNull(lines, "lines");
            return this;
        }

        @Override
        public McpClient build() {
            return new McpClient(this, String.join(" ", command), notifications -> new StdioMcpTransport(command, environment, directory, stderr,
                    JsonRpcCodec.withDefaults(), notifications));
        }
    }
}
