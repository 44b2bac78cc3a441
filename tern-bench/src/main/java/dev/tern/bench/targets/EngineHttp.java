package dev.tern.bench.targets;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import dev.tern.bench.ConnectionObserver;
import dev.tern.bench.Outcome;
import dev.tern.bench.ServerTiming;
import dev.tern.client.http.ClientTls;
import dev.tern.client.http.ConnectionInfo;
import dev.tern.client.http.ConnectionListener;
import dev.tern.client.http.HttpCall;
import dev.tern.client.http.HttpClientEngine;
import dev.tern.client.http.HttpProtocol;
import dev.tern.client.http.HttpReply;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.AsciiString;

/**
 * HTTP over Tern's client engine: a keep-alive pool (HTTP/1.1) or multiplexed streams (h2c, h2), with connect and TLS
 * handshake times, resumption, and each request's send and first-byte instants.
 */
final class EngineHttp implements AutoCloseable {
    final HttpVersion version;
    final HttpClientEngine engine;
    /** One I/O thread for all connections, as {@code wrk -t1} has: the runner paces requests on it. */
    private final EventLoopGroup io = new MultiThreadIoEventLoopGroup(1,
            Epoll.isAvailable() ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
    private volatile ConnectionObserver observer = ConnectionObserver.NONE;
    /** Name and value pairs every request carries (say an Authorization header). */
    private final java.util.List<java.util.Map.Entry<String, String>> headers;
    /** Every this many requests one asks the server to close its connection after answering; 0 never. */
    private int closeEvery;
    private final java.util.concurrent.atomic.AtomicLong sent = new java.util.concurrent.atomic.AtomicLong();

    EngineHttp(URI uri, HttpVersion version, boolean insecure, Duration timeout, int connections) {
        this(uri, version, insecure, timeout, connections, java.util.List.of());
    }

    EngineHttp(URI uri, HttpVersion version, boolean insecure, Duration timeout, int connections,
            java.util.List<java.util.Map.Entry<String, String>> headers) {
        this.version = version;
        boolean tls = "https".equalsIgnoreCase(uri.getScheme());
        this.headers = java.util.List.copyOf(headers);
        HttpClientEngine.Builder b = HttpClientEngine.builder(uri)
                .eventLoopGroup(io)
                .protocol(switch (version) {
                    case HTTP_1_1 -> HttpProtocol.HTTP_1_1;
                    case H2C -> HttpProtocol.H2C;
                    case H2 -> HttpProtocol.H2;
                })
                .responseTimeout(timeout)
                .connectionListener(new ConnectionListener() {
                    @Override
                    public void connected(ConnectionInfo info) {
                        ConnectionObserver o = observer;
                        o.connected(info.connectNanos());
                        if (info.tls()) {
                            o.tlsHandshake(info.tlsHandshakeNanos(), info.tlsResumed());
                        }
                    }

                    @Override
                    public void connectFailed(Throwable cause) {
                        // a refused or timed-out TCP connect is a ConnectException; anything after it is the handshake
                        if (tls && !(cause instanceof java.net.ConnectException)) {
                            observer.tlsHandshakeFailed(String.valueOf(cause));
                        }
                    }
                });
        if (version == HttpVersion.HTTP_1_1) {
            b.maxConnections(connections);
        } else {
            b.maxConcurrentStreams(connections);
        }
        if (tls) {
            b.tls(insecure ? ClientTls.insecure() : ClientTls.system());
        }
        this.engine = b.build();
    }

    void observe(ConnectionObserver o) {
        this.observer = o == null ? ConnectionObserver.NONE : o;
    }

    /**
     * HTTP/1.1: every {@code requests}-th request carries {@code Connection: close}, so that connections last that
     * many requests on average and new ones (new TLS handshakes) are made throughout a run; 0 keeps them open.
     */
    EngineHttp closingEvery(int requests) {
        if (requests < 0 || requests > 0 && version != HttpVersion.HTTP_1_1) {
            throw new IllegalArgumentException("requests per connection: " + requests
                    + " (expected: 0, or > 0 over HTTP/1.1)");
        }
        this.closeEvery = requests;
        return this;
    }

    ScheduledExecutorService ioThread() {
        return io.next();
    }

    CompletableFuture<HttpReply> send(HttpCall call) {
        for (java.util.Map.Entry<String, String> header : headers) {
            call.header(header.getKey(), header.getValue());
        }
        if (closeEvery > 0 && sent.incrementAndGet() % closeEvery == 0) {
            call.header("connection", "close");
        }
        return engine.send(call);
    }

    static Outcome timed(HttpReply r, Outcome o) {
        // Most servers send no Server-Timing: one look-up then, without the list of every value.
        ServerTiming timing = r.header(SERVER_TIMING) == null ? null
                : ServerTiming.parse(String.join(",", r.headers(SERVER_TIMING)));
        return o.withTimings(r.sentNanos(), r.firstByteNanos(), timing);
    }

    /** A header name that keeps its hash: a look-up by a String name hashes it again each time. */
    private static final AsciiString SERVER_TIMING = AsciiString.cached("server-timing");

    static HttpCall post(String body) {
        return HttpCall.post(null, "application/json", body.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public void close() {
        engine.close();
        io.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }
}
