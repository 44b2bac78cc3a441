package dev.tern.bench.targets;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import dev.tern.bench.ConnectionObserver;
import dev.tern.bench.Operation;
import dev.tern.bench.Outcome;
import dev.tern.bench.Target;
import dev.tern.client.ClientTracer;
import dev.tern.client.http.ClientTls;
import dev.tern.client.http.WebSocketClient;
import dev.tern.protocol.WireFormat;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.nio.NioIoHandler;

import tools.jackson.databind.JsonNode;

/**
 * An MCP server's WebSocket endpoint ({@code ws://}, {@code wss://}): a few long-lived connections, requests spread
 * over them in turn and pipelined, replies matched by id. In the legacy era each connection holds a session of its
 * own, opened by its own {@code initialize}.
 */
public final class WebSocketMcpTarget implements Target {
    private final URI uri;
    private final Era era;
    private final boolean insecure;
    private final Duration timeout;
    private final WebSocketClient[] sockets;
    private final EventLoopGroup group;
    private final AtomicLong ids = new AtomicLong(1);
    private final AtomicInteger turn = new AtomicInteger();
    private final Map<Long, Pending> pending = new ConcurrentHashMap<>();
    /** Every message in a binary format (subprotocol {@code mcp.cbor}, {@code mcp.msgpack}); {@code null} for JSON. */
    private final BinaryWire binary;
    /** Each WebSocket on an HTTP/2 stream (RFC 8441) rather than an upgraded HTTP/1.1 connection. */
    private final boolean http2;
    /** Makes a client span of each call and puts its context in the call's {@code _meta}; null for none. */
    private volatile ClientTracer tracer;
    private volatile McpWire wire;
    private volatile boolean closed;

    private record Pending(CompletableFuture<Reply> future, long sentNanos) {
    }

    private record Reply(JsonNode message, long receivedNanos) {
    }

    private WebSocketMcpTarget(URI uri, Era era, boolean insecure, Duration timeout, int connections,
            WireFormat format, boolean http2) {
        this.uri = uri;
        this.http2 = http2;
        this.binary = format.binary() ? new BinaryWire(format) : null;
        this.era = era;
        this.insecure = insecure;
        this.timeout = timeout;
        this.sockets = new WebSocketClient[connections];
        int threads = Math.min(2, Runtime.getRuntime().availableProcessors());
        this.group = new MultiThreadIoEventLoopGroup(threads,
                Epoll.isAvailable() ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
    }

    /** A target over {@code connections} WebSocket connections to {@code uri}. */
    public static WebSocketMcpTarget of(URI uri, Era era, boolean insecure, Duration timeout, int connections) {
        return of(uri, era, insecure, timeout, connections, WireFormat.JSON);
    }

    /** As {@link #of(URI, Era, boolean, Duration, int)}, every message in {@code format} (its subprotocol). */
    public static WebSocketMcpTarget of(URI uri, Era era, boolean insecure, Duration timeout, int connections,
            WireFormat format) {
        return of(uri, era, insecure, timeout, connections, format, false);
    }

    /**
     * As {@link #of(URI, Era, boolean, Duration, int, WireFormat)}; with {@code http2} each connection is an HTTP/2
     * connection carrying the WebSocket on a stream (RFC 8441), where the server offers it.
     */
    public static WebSocketMcpTarget of(URI uri, Era era, boolean insecure, Duration timeout, int connections,
            WireFormat format, boolean http2) {
        if (connections <= 0) {
            throw new IllegalArgumentException("connections: " + connections + " (expected: > 0)");
        }
        return new WebSocketMcpTarget(uri, era, insecure, timeout, connections,
                java.util.Objects.requireNonNull(format, "format"), http2);
    }

    /**
     * A client span of each call (not of the set-up), its trace context in the call's {@code params._meta} so that the
     * server's span joins the trace; set before the target is opened.
     */
    public WebSocketMcpTarget tracer(ClientTracer value) {
        this.tracer = java.util.Objects.requireNonNull(value, "tracer");
        return this;
    }

    @Override
    public synchronized void open(ConnectionObserver observer) throws Exception {
        if (wire != null) {
            return;
        }
        WebSocketClient.Builder builder = WebSocketClient.builder(uri).eventLoopGroup(group)
                .connectTimeout(setUpTimeout()).subprotocol(binary == null ? WireFormat.JSON.subprotocol()
                        : binary.format().subprotocol()).http2(http2);
        if (insecure) {
            builder.tls(ClientTls.insecure());
        }
        for (int i = 0; i < sockets.length; i++) {
            long started = System.nanoTime();
            sockets[i] = builder.connect(this::receive, closed -> failAll("the WebSocket connection closed ("
                    + closed.status() + " " + closed.reason() + ")")).get(setUpTimeout().toMillis(), TimeUnit.MILLISECONDS);
            observer.connected(System.nanoTime() - started);
        }
        if (era != Era.LEGACY) {
            McpWire modern = new McpWire(true);
            String[] t = modern.template("server/discover", McpWire.JSON.createObjectNode());
            long id = ids.getAndIncrement();
            if (era == Era.MODERN || McpWire.classify(exchange(sockets[0], id, t[0] + id + t[1]).message()).isOk()) {
                wire = modern;
                return;
            }
        }
        McpWire negotiated = null;
        for (WebSocketClient socket : sockets) {
            long id = ids.getAndIncrement();
            Reply init = exchange(socket, id, McpWire.initialize().replace("\"id\":0", "\"id\":" + id));
            Outcome o = McpWire.classify(init.message());
            if (!o.isOk()) {
                throw new IllegalStateException("initialize failed: " + o.status().key() + " " + o.detail());
            }
            send(socket, McpWire.INITIALIZED);
            negotiated = McpWire.negotiated(init.message());
        }
        wire = negotiated;
    }

    /** Sends one request during set-up and waits for its reply. */
    private Reply exchange(WebSocketClient socket, long id, String request) throws Exception {
        return submit(socket, id, request).get(setUpTimeout().toMillis(), TimeUnit.MILLISECONDS);
    }

    private Duration setUpTimeout() {
        Duration least = Duration.ofSeconds(30);
        return timeout.compareTo(least) > 0 ? timeout : least;
    }

    private CompletableFuture<Reply> submit(WebSocketClient socket, long id, String request) {
        CompletableFuture<Reply> f = new CompletableFuture<>();
        if (closed || !socket.isOpen()) {
            f.completeExceptionally(new IllegalStateException("the WebSocket connection is closed"));
            return f;
        }
        pending.put(id, new Pending(f, System.nanoTime()));
        send(socket, request).addListener(done -> {
            if (!done.isSuccess()) {
                Pending p = pending.remove(id);
                if (p != null) {
                    p.future().completeExceptionally(done.cause());
                }
            }
        });
        return f;
    }

    private io.netty.channel.ChannelFuture send(WebSocketClient socket, String json) {
        return binary == null ? socket.send(json.getBytes(StandardCharsets.UTF_8))
                : socket.sendBinary(binary.encode(json));
    }

    @Override
    public CompletableFuture<Outcome> call(Operation operation) {
        McpWire w = wire;
        if (w == null) {
            throw new IllegalStateException("target not open");
        }
        long id = ids.getAndIncrement();
        WebSocketClient socket = sockets[Math.floorMod(turn.getAndIncrement(), sockets.length)];
        ClientTracer t = tracer;
        if (t != null) {
            return TracedRequests.send(t, true, operation, w.request(id, operation), body -> send(socket, id, body));
        }
        return send(socket, id, w.request(id, operation));
    }

    private CompletableFuture<Outcome> send(WebSocketClient socket, long id, String body) {
        long sent = System.nanoTime();
        return submit(socket, id, body).handle((reply, e) -> e != null ? Outcome.transport(e)
                : McpWire.classify(reply.message()).withTimings(sent, reply.receivedNanos(), null));
    }

    private void receive(byte[] bytes) {
        long now = System.nanoTime();
        JsonNode message;
        try {
            byte[] json = binary == null ? bytes : binary.toJson(bytes);
            if (json == null) {
                return;
            }
            message = McpWire.JSON.readTree(json);
        } catch (RuntimeException e) {
            return;
        }
        JsonNode id = message.get("id");
        if (id == null || !id.isIntegralNumber() || message.has("method")) {
            return;
        }
        Pending p = pending.remove(id.asLong());
        if (p != null) {
            p.future().complete(new Reply(message, now));
        }
    }

    private void failAll(String why) {
        for (Long id : pending.keySet()) {
            Pending p = pending.remove(id);
            if (p != null) {
                p.future().completeExceptionally(new IllegalStateException(why));
            }
        }
    }

    @Override
    public String describe() {
        McpWire w = wire;
        String version = w == null ? (era == Era.LEGACY ? McpWire.LEGACY_VERSION : McpWire.MODERN_VERSION)
                : w.version();
        WebSocketClient first = sockets[0];
        return "MCP " + version + (w != null && !w.modern() ? " (session)" : "") + " " + uri + " (WebSocket"
                + (binary == null ? "" : " " + binary.format().displayName())
                + (first != null && first.http2() ? " on HTTP/2" : "") + ", " + sockets.length
                + (sockets.length == 1 ? " connection)" : " connections)");
    }

    @Override
    public void close() {
        closed = true;
        for (WebSocketClient s : sockets) {
            if (s != null) {
                s.close();
            }
        }
        failAll("target closed");
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }
}
