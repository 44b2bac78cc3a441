package dev.tern.bench.targets;

import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import dev.tern.bench.ConnectionObserver;
import dev.tern.bench.CacheTally;
import dev.tern.bench.Operation;
import dev.tern.bench.Outcome;
import dev.tern.bench.Target;
import dev.tern.client.ClientTracer;
import dev.tern.client.http.HttpCall;
import dev.tern.client.http.HttpReply;
import dev.tern.protocol.WireFormat;

import tools.jackson.databind.JsonNode;

/**
 * An MCP server over Streamable HTTP, in either era: modern stateless requests, or a legacy session opened with
 * {@code initialize} and shared by all requests. Replies may be JSON or SSE.
 */
public final class HttpMcpTarget implements Target {
    private static final String ACCEPT = "application/json, text/event-stream";
    private final URI uri;
    private final Era era;
    private final Duration timeout;
    private final EngineHttp http;
    private final AtomicLong ids = new AtomicLong(1);
    private final CacheTally tally = new CacheTally();
    /** Calls' bodies and answers in a binary format; {@code null} for JSON. */
    private final BinaryWire binary;
    /** Makes a client span of each call and puts its context in the call's {@code _meta}; null for none. */
    private final ClientTracer tracer;
    private volatile McpWire wire;
    private volatile String session;

    private HttpMcpTarget(Builder b) {
        this.uri = b.uri;
        this.era = b.era;
        this.timeout = b.timeout;
        this.http = new EngineHttp(b.uri, b.version, b.insecure, b.timeout, b.connections, b.headers)
                .closingEvery(b.requestsPerConnection);
        this.binary = b.format.binary() ? new BinaryWire(b.format) : null;
        this.tracer = b.tracer;
    }

    public static Builder builder(URI uri) {
        return new Builder(uri);
    }

    /** Options of an HTTP MCP target. */
    public static final class Builder {
        private final URI uri;
        private Era era = Era.AUTO;
        private HttpVersion version = HttpVersion.HTTP_1_1;
        private boolean insecure;
        private Duration timeout = Duration.ofSeconds(10);
        private int connections = 64;
        private int requestsPerConnection;
        private WireFormat format = WireFormat.JSON;
        private final java.util.List<java.util.Map.Entry<String, String>> headers = new java.util.ArrayList<>();
        private ClientTracer tracer;

        private Builder(URI uri) {
            this.uri = Objects.requireNonNull(uri, "uri");
        }

        public Builder era(Era value) {
            this.era = Objects.requireNonNull(value, "era");
            return this;
        }

        public Builder http(HttpVersion value) {
            this.version = Objects.requireNonNull(value, "version");
            return this;
        }

        /** Trusts any server certificate and host name (for self-signed development certificates). */
        public Builder insecure(boolean value) {
            this.insecure = value;
            return this;
        }

        public Builder timeout(Duration value) {
            this.timeout = Objects.requireNonNull(value, "timeout");
            return this;
        }

        /**
         * HTTP/1.1: at most this many connections (requests beyond wait for one); HTTP/2: at most this many
         * concurrent streams on the connection (default 64).
         */
        public Builder connections(int value) {
            if (value <= 0) {
                throw new IllegalArgumentException("connections: " + value + " (expected: > 0)");
            }
            this.connections = value;
            return this;
        }

        /**
         * Sends the calls' bodies in {@code format} and asks for answers in it (CBOR, MessagePack; default JSON);
         * the set-up ({@code server/discover}, {@code initialize}) stays JSON.
         */
        public Builder encoding(WireFormat value) {
            this.format = Objects.requireNonNull(value, "format");
            return this;
        }

        /**
         * HTTP/1.1: connections carry this many requests on average, then the server is asked to close them, so that
         * new connections (and TLS handshakes) are made all through a run; 0 (the default) keeps them open.
         */
        public Builder requestsPerConnection(int value) {
            if (value < 0) {
                throw new IllegalArgumentException("requestsPerConnection: " + value + " (expected: >= 0)");
            }
            this.requestsPerConnection = value;
            return this;
        }

        /** A header every request carries, say {@code Authorization: Bearer ...} (repeatable). */
        public Builder header(String name, String value) {
            headers.add(java.util.Map.entry(name, value));
            return this;
        }

        /**
         * A client span of each call (not of the set-up), its trace context in the call's {@code params._meta} so
         * that the server's span joins the trace (default none).
         */
        public Builder tracer(ClientTracer value) {
            this.tracer = Objects.requireNonNull(value, "tracer");
            return this;
        }

        public HttpMcpTarget build() {
            return new HttpMcpTarget(this);
        }
    }

    @Override
    public void open(ConnectionObserver observer) throws Exception {
        http.observe(observer);
        if (era != Era.LEGACY) {
            McpWire modern = new McpWire(true);
            if (era == Era.MODERN || discovers(modern)) {
                wire = modern;
                return;
            }
        }
        initialize();
    }

    private HttpReply await(CompletableFuture<HttpReply> reply) throws Exception {
        return reply.get(timeout.toNanos() + TimeUnit.SECONDS.toNanos(1), TimeUnit.NANOSECONDS);
    }

    private boolean discovers(McpWire modern) throws Exception {
        String[] t = modern.template("server/discover", McpWire.JSON.createObjectNode());
        HttpReply r = await(post(modern, t[0] + ids.getAndIncrement() + t[1], "server/discover", null));
        return McpWire.classifyHttp(r).isOk();
    }

    private void initialize() throws Exception {
        McpWire asked = new McpWire(false);
        HttpReply init = await(post(asked, McpWire.initialize(), "initialize", null));
        Outcome o = McpWire.classifyHttp(init);
        if (!o.isOk()) {
            throw new IllegalStateException("initialize failed: " + o.status().key() + " " + o.detail());
        }
        session = init.header("mcp-session-id");
        McpWire negotiated = McpWire.negotiated(McpWire.response(init));
        HttpReply done = await(post(negotiated, McpWire.INITIALIZED, "notifications/initialized", null));
        if (done.status() / 100 != 2) {
            throw new IllegalStateException("notifications/initialized: HTTP " + done.status());
        }
        wire = negotiated;
    }

    private CompletableFuture<HttpReply> post(McpWire w, String body, String method, String name) {
        return post(w, EngineHttp.post(body).header("accept", ACCEPT), method, name);
    }

    private CompletableFuture<HttpReply> post(McpWire w, HttpCall call, String method, String name) {
        if (w.modern()) {
            call.header("mcp-protocol-version", McpWire.MODERN_VERSION).header("mcp-method", method);
            if (name != null) {
                call.header("mcp-name", name);
            }
        } else if (!"initialize".equals(method)) {
            call.header("mcp-protocol-version", w.version());
            if (session != null) {
                call.header("mcp-session-id", session);
            }
        }
        return http.send(call);
    }

    @Override
    public CompletableFuture<Outcome> call(Operation operation) {
        McpWire w = wire;
        if (w == null) {
            throw new IllegalStateException("target not open");
        }
        String body = w.request(ids.getAndIncrement(), operation);
        if (tracer != null) {
            return TracedRequests.send(tracer, true, operation, body, traced -> send(w, operation, traced));
        }
        return send(w, operation, body);
    }

    private CompletableFuture<Outcome> send(McpWire w, Operation operation, String body) {
        if (binary != null) {
            String type = binary.format().mediaType();
            HttpCall call = HttpCall.post(null, type, binary.encode(body)).header("accept", type + ", " + ACCEPT);
            return post(w, call, McpWire.method(operation), McpWire.name(operation)).thenApply(r -> {
                if (!type.equals(r.contentType())) {
                    return EngineHttp.timed(r, McpWire.classifyHttp(r));
                }
                byte[] json = binary.toJson(r.body());
                if (json == null) {
                    return EngineHttp.timed(r, Outcome.failed(Outcome.Status.TRANSPORT, "a malformed " + type
                            + " answer"));
                }
                if (r.status() == 200) {
                    tally.observe(json);
                }
                JsonNode message = McpWire.JSON.readTree(json);
                return EngineHttp.timed(r, r.status() / 100 == 2 || message.has("error") ? McpWire.classify(message)
                        : Outcome.failed(Outcome.Status.HTTP_STATUS, "HTTP " + r.status()));
            });
        }
        return post(w, body, McpWire.method(operation), McpWire.name(operation))
                .thenApply(r -> {
                    if (r.status() == 200 && "application/json".equals(r.contentType())) {
                        tally.observe(r.body());
                    }
                    return EngineHttp.timed(r, McpWire.classifyHttp(r));
                });
    }

    @Override
    public CacheTally cacheTally() {
        return tally;
    }

    @Override
    public ScheduledExecutorService ioThread() {
        return http.ioThread();
    }

    @Override
    public String describe() {
        McpWire w = wire;
        String version = w == null ? (era == Era.LEGACY ? McpWire.LEGACY_VERSION : McpWire.MODERN_VERSION)
                : w.version();
        return "MCP " + version + (w != null && !w.modern() ? " (session)" : "") + " " + uri + " ("
                + http.version.label() + (binary == null ? "" : ", " + binary.format().displayName()) + ")";
    }

    @Override
    public void close() {
        http.close();
    }
}
