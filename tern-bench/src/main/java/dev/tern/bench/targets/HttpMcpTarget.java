package dev.tern.bench.targets;

import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import dev.tern.bench.ConnectionObserver;
import dev.tern.bench.Operation;
import dev.tern.bench.Outcome;
import dev.tern.bench.Target;

/**
 * An MCP server over Streamable HTTP, in either era: modern stateless requests, or a legacy session opened with
 * {@code initialize} and shared by all requests. Replies may be JSON or SSE.
 */
public final class HttpMcpTarget implements Target {
    private final URI uri;
    private final Era era;
    private final JdkHttp http;
    private final AtomicLong ids = new AtomicLong(1);
    private volatile McpWire wire;
    private volatile String session;

    private HttpMcpTarget(Builder b) {
        this.uri = b.uri;
        this.era = b.era;
        this.http = new JdkHttp(b.version, b.insecure, b.timeout);
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

        public HttpMcpTarget build() {
            return new HttpMcpTarget(this);
        }
    }

    @Override
    public void open(ConnectionObserver observer) throws Exception {
        http.prime(uri);
        if (era != Era.LEGACY) {
            McpWire modern = new McpWire(true);
            if (era == Era.MODERN || discovers(modern)) {
                wire = modern;
                return;
            }
        }
        wire = new McpWire(false);
        initialize();
    }

    private boolean discovers(McpWire modern) throws Exception {
        String[] t = modern.template("server/discover", McpWire.JSON.createObjectNode());
        JdkHttp.Reply r = post(modern, t[0] + ids.getAndIncrement() + t[1], "server/discover", null).get();
        return McpWire.classifyHttp(r.status(), r.contentType(), r.body()).isOk();
    }

    private void initialize() throws Exception {
        JdkHttp.Reply init = post(wire, McpWire.initialize(), "initialize", null).get();
        Outcome o = McpWire.classifyHttp(init.status(), init.contentType(), init.body());
        if (!o.isOk()) {
            throw new IllegalStateException("initialize failed: " + o.status().key() + " " + o.detail());
        }
        session = init.headers().firstValue("mcp-session-id").orElse(null);
        JdkHttp.Reply done = post(wire, McpWire.INITIALIZED, "notifications/initialized", null).get();
        if (done.status() / 100 != 2) {
            throw new IllegalStateException("notifications/initialized: HTTP " + done.status());
        }
    }

    private CompletableFuture<JdkHttp.Reply> post(McpWire w, String body, String method, String name) {
        HttpRequest.Builder b = http.request(uri)
                .header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (w.modern()) {
            b.header("MCP-Protocol-Version", McpWire.MODERN_VERSION).header("Mcp-Method", method);
            if (name != null) {
                b.header("Mcp-Name", name);
            }
        } else if (!"initialize".equals(method)) {
            b.header("MCP-Protocol-Version", McpWire.LEGACY_VERSION);
            if (session != null) {
                b.header("Mcp-Session-Id", session);
            }
        }
        return http.send(b.build());
    }

    @Override
    public CompletableFuture<Outcome> call(Operation operation) {
        McpWire w = wire;
        if (w == null) {
            throw new IllegalStateException("target not open");
        }
        String body = w.request(ids.getAndIncrement(), operation);
        return post(w, body, McpWire.method(operation), McpWire.name(operation))
                .thenApply(r -> r.withTimings(McpWire.classifyHttp(r.status(), r.contentType(), r.body())));
    }

    @Override
    public String describe() {
        McpWire w = wire;
        String version = w == null ? (era == Era.LEGACY ? McpWire.LEGACY_VERSION : McpWire.MODERN_VERSION)
                : w.version();
        return "MCP " + version + (w != null && !w.modern() ? " (session)" : "") + " " + uri + " ("
                + http.version.label() + ")";
    }

    @Override
    public void close() {
        http.close();
    }
}
