package dev.tern.client.http;

import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSession;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.ThreadExecutorMap;

/**
 * An asynchronous HTTP client for one server (one base URI): HTTP/1.1 over a keep-alive connection pool, HTTP/2 with
 * multiplexed streams (h2c with prior knowledge, or h2 over TLS by ALPN), TLS with a shared, bounded session cache.
 * Built on Netty, with native epoll where available. Thread-safe; {@link #send} may be called from any thread, and
 * the returned futures complete on I/O threads, so callbacks attached to them must not block.
 *
 * <pre>{@code
 * try (HttpClientEngine http = HttpClientEngine.builder(URI.create("http://127.0.0.1:8080/mcp"))
 *         .protocol(HttpProtocol.H2C).build()) {
 *     HttpReply reply = http.send(HttpCall.get("/users/7")).join();
 * }
 * }</pre>
 */
public final class HttpClientEngine implements AutoCloseable {
    private final URI baseUri;
    private final Target target;
    private final HttpProtocol protocol;
    private final ClientTls tls;
    private final Duration connectTimeout;
    private final Duration responseTimeout;
    private final int maxStreams;
    private final int maxResponseBytes;
    private final ConnectionListener listener;
    private final EventLoopGroup group;
    private final boolean ownsGroup;
    private final Bootstrap bootstrap;
    private final Pool pool;
    private final InetSocketAddress address;
    /** Where connections are made from; {@code null}: wherever the system routes them. */
    private final InetSocketAddress localAddress;

    private HttpClientEngine(Builder b) {
        localAddress = b.localAddress == null ? null : new InetSocketAddress(b.localAddress, 0);
        baseUri = b.uri;
        target = Target.of(b.uri);
        protocol = b.protocol;
        tls = target.tls() ? (b.tls != null ? b.tls : ClientTls.system()) : null;
        connectTimeout = b.connectTimeout;
        responseTimeout = b.responseTimeout;
        maxStreams = b.maxConcurrentStreams;
        maxResponseBytes = b.maxResponseBytes;
        listener = b.listener != null ? b.listener : info -> { };
        boolean epoll = Epoll.isAvailable();
        if (b.group != null) {
            group = b.group;
            ownsGroup = false;
        } else {
            IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
            group = new MultiThreadIoEventLoopGroup(b.ioThreads, io);
            ownsGroup = true;
        }
        boolean nativeGroup = epoll && (ownsGroup
                || group.next() instanceof io.netty.channel.IoEventLoop loop && loop.isIoType(EpollIoHandler.class));
        bootstrap = new Bootstrap().group(group)
                .channel(nativeGroup ? EpollSocketChannel.class : NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.SO_KEEPALIVE, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, connectTimeout.toMillis()))
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        // protocol handlers are added once the connection is up
                    }
                });
        address = new InetSocketAddress(target.host(), target.port());
        boolean multiplexed = protocol != HttpProtocol.HTTP_1_1;
        pool = new Pool(b.maxConnections > 0 ? b.maxConnections : multiplexed ? 1 : 64, multiplexed, this::connect,
                listener);
    }

    /** A builder for an engine sending to {@code baseUri} (http or https; its path is where calls without one go). */
    public static Builder builder(URI baseUri) {
        return new Builder(baseUri);
    }

    /**
     * Sends a request. The future completes with the whole response (any status), or exceptionally with an
     * {@link HttpClientException} when no complete response came, or a {@link TimeoutException} after the response
     * timeout. Cancelling the future abandons the request: its HTTP/2 stream is reset, its HTTP/1.1 connection closed
     * (for a Streamable HTTP request of 2026-07-28, that is how a client cancels).
     */
    public CompletableFuture<HttpReply> send(HttpCall call) {
        Exchange exchange = new Exchange(Objects.requireNonNull(call, "call"), maxResponseBytes);
        if (!responseTimeout.isZero()) {
            // Sent from one of the engine's own I/O threads (a reply's callback, a load generator's pacing), the
            // timeout goes into that thread's queue of timed tasks: no hand-off to the wheel's thread and back.
            EventExecutor loop = ThreadExecutorMap.currentExecutor();
            if (loop != null && loop.parent() == group) {
                exchange.loopTimeout = loop.schedule(() -> exchange.fail(timedOut()), responseTimeout.toNanos(),
                        TimeUnit.NANOSECONDS);
            } else {
                exchange.timeout = Timeouts.TIMER.newTimeout(t -> exchange.fail(timedOut()),
                        responseTimeout.toNanos(), TimeUnit.NANOSECONDS);
            }
        }
        pool.submit(exchange);
        return exchange.future;
    }

    private TimeoutException timedOut() {
        return new TimeoutException("no complete response within " + responseTimeout);
    }

    /** The base URI: where calls without a path go. */
    public URI baseUri() {
        return baseUri;
    }

    /** The base URI's path (and query). */
    public String basePath() {
        return target.basePath();
    }

    public HttpProtocol protocol() {
        return protocol;
    }

    /** How many connections are open and ready. */
    public int connections() {
        return pool.connectionCount();
    }

    /** Fails what is waiting, closes every connection and, unless it was given one, stops the I/O threads. */
    @Override
    public void close() {
        for (ClientConnection c : pool.close()) {
            c.channel.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        }
        if (ownsGroup) {
            group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
    }

    private void connect(Pool p) {
        long start = System.nanoTime();
        ChannelFuture f = localAddress == null ? bootstrap.connect(address) : bootstrap.connect(address, localAddress);
        f.addListener(done -> {
            if (!done.isSuccess()) {
                p.connectFailed(done.cause());
                return;
            }
            long connectNanos = System.nanoTime() - start;
            Channel ch = f.channel();
            try {
                if (tls != null) {
                    startTls(ch, connectNanos);
                } else if (protocol == HttpProtocol.HTTP_1_1) {
                    ConnectionInfo info = new ConnectionInfo(ch.remoteAddress(), "http/1.1", connectNanos, 0, false,
                            null, null);
                    p.connected(new Http1Connection(ch, p, info, target));
                } else {
                    ConnectionInfo info = new ConnectionInfo(ch.remoteAddress(), "h2c", connectNanos, 0, false,
                            null, null);
                    installHttp2(ch, info);
                }
            } catch (RuntimeException e) {
                ch.close();
                p.connectFailed(e);
            }
        });
    }

    private void installHttp2(Channel ch, ConnectionInfo info) {
        Http2Connection.install(ch, pool, info, target, maxStreams, pool::connected, cause -> {
            ch.close();
            pool.connectFailed(cause);
        });
    }

    private void startTls(Channel ch, long connectNanos) {
        List<String> alpn = protocol == HttpProtocol.HTTP_1_1 ? List.of("http/1.1") : List.of("h2", "http/1.1");
        SSLEngine engine = tls.newEngine(target.host(), target.port(), alpn);
        SslHandler ssl = new SslHandler(engine);
        ssl.setHandshakeTimeout(connectTimeout.toMillis(), TimeUnit.MILLISECONDS);
        long handshakeStart = System.nanoTime();
        ch.pipeline().addLast(ssl, new ChannelInboundHandlerAdapter() {
            private boolean settled;

            @Override
            public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
                if (evt instanceof SslHandshakeCompletionEvent done && !settled) {
                    settled = true;
                    if (!done.isSuccess()) {
                        // stays in the pipeline to swallow the handshake exception that follows the event
                        ctx.close();
                        pool.connectFailed(done.cause());
                        return;
                    }
                    ctx.pipeline().remove(this);
                    long handshakeNanos = System.nanoTime() - handshakeStart;
                    SSLSession session = engine.getSession();
                    String negotiated = engine.getApplicationProtocol();
                    boolean h2 = "h2".equals(negotiated);
                    ConnectionInfo info = new ConnectionInfo(ch.remoteAddress(), h2 ? "h2" : "http/1.1", connectNanos,
                            handshakeNanos, tls.resumed(engine), session.getProtocol(), session.getCipherSuite());
                    if (h2) {
                        installHttp2(ch, info);
                    } else {
                        pool.connected(new Http1Connection(ch, pool, info, target));
                    }
                    return;
                }
                super.userEventTriggered(ctx, evt);
            }

            @Override
            public void channelInactive(ChannelHandlerContext ctx) throws Exception {
                if (!settled) {
                    settled = true;
                    pool.connectFailed(new HttpClientException("connection closed during the TLS handshake"));
                }
                super.channelInactive(ctx);
            }

            @Override
            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                ctx.close();
            }
        });
    }

    /** One timer wheel for the response timeouts of every engine: cheap to arm and cancel per request. */
    private static final class Timeouts {
        static final io.netty.util.HashedWheelTimer TIMER = new io.netty.util.HashedWheelTimer(
                r -> Thread.ofPlatform().daemon().name("tern-client-timeouts").unstarted(r),
                10, TimeUnit.MILLISECONDS, 1024);
    }

    public static final class Builder {
        private final URI uri;
        private HttpProtocol protocol = HttpProtocol.HTTP_1_1;
        private ClientTls tls;
        private int maxConnections;
        private int maxConcurrentStreams = 1000;
        private Duration connectTimeout = Duration.ofSeconds(10);
        private Duration responseTimeout = Duration.ofSeconds(60);
        private int maxResponseBytes = 16 * 1024 * 1024;
        private int ioThreads = Math.min(2, Runtime.getRuntime().availableProcessors());
        private EventLoopGroup group;
        private ConnectionListener listener;
        private java.net.InetAddress localAddress;

        private Builder(URI uri) {
            this.uri = Objects.requireNonNull(uri, "uri");
        }

        /** HTTP/1.1 (default), H2C, or H2 (needs an https URI). */
        public Builder protocol(HttpProtocol protocol) {
            this.protocol = Objects.requireNonNull(protocol, "protocol");
            return this;
        }

        /** TLS trust and session cache for https URIs; share one {@link ClientTls} to share its session cache. */
        public Builder tls(ClientTls tls) {
            this.tls = Objects.requireNonNull(tls, "tls");
            return this;
        }

        /**
         * At most this many connections: the HTTP/1.1 pool size (default 64), or how many HTTP/2 connections may be
         * opened when one's streams are all busy (default 1).
         */
        public Builder maxConnections(int max) {
            if (max <= 0) {
                throw new IllegalArgumentException("maxConnections: " + max + " (expected: > 0)");
            }
            this.maxConnections = max;
            return this;
        }

        /** At most this many concurrent streams per HTTP/2 connection (default 1000; the server's limit also holds). */
        public Builder maxConcurrentStreams(int max) {
            if (max <= 0) {
                throw new IllegalArgumentException("maxConcurrentStreams: " + max + " (expected: > 0)");
            }
            this.maxConcurrentStreams = max;
            return this;
        }

        /** TCP connect and TLS handshake timeout, each (default 10 s). */
        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = positive(timeout, "connectTimeout");
            return this;
        }

        /** From send to the response's last byte, waiting for a connection included (default 60 s; zero: none). */
        public Builder responseTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "responseTimeout");
            if (timeout.isNegative()) {
                throw new IllegalArgumentException("responseTimeout: " + timeout + " (expected: >= 0)");
            }
            this.responseTimeout = timeout;
            return this;
        }

        /** Responses with a longer body fail (default 16 MiB). */
        public Builder maxResponseBytes(int max) {
            if (max <= 0) {
                throw new IllegalArgumentException("maxResponseBytes: " + max + " (expected: > 0)");
            }
            this.maxResponseBytes = max;
            return this;
        }

        /** I/O threads of the engine's own event loop group (default: min(2, cores)). */
        public Builder ioThreads(int threads) {
            if (threads <= 0) {
                throw new IllegalArgumentException("ioThreads: " + threads + " (expected: > 0)");
            }
            this.ioThreads = threads;
            return this;
        }

        /** Runs on this event loop group instead of its own; the engine does not shut it down. */
        public Builder eventLoopGroup(EventLoopGroup group) {
            this.group = Objects.requireNonNull(group, "group");
            return this;
        }

        /**
         * Connects from this local address (any port): a machine's other interface, or another loopback address
         * (127.0.0.2 and up on Linux) to stand for another client of a server on 127.0.0.1.
         */
        public Builder localAddress(java.net.InetAddress address) {
            this.localAddress = Objects.requireNonNull(address, "address");
            return this;
        }

        /** Told about every connection opened, failed and closed. */
        public Builder connectionListener(ConnectionListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        public HttpClientEngine build() {
            if (protocol == HttpProtocol.H2 && !"https".equalsIgnoreCase(uri.getScheme())) {
                throw new IllegalArgumentException("protocol H2 needs an https URI, was " + uri + " (use H2C for cleartext)");
            }
            if (protocol == HttpProtocol.H2C && "https".equalsIgnoreCase(uri.getScheme())) {
                throw new IllegalArgumentException("protocol H2C needs an http URI, was " + uri + " (use H2 over TLS)");
            }
            return new HttpClientEngine(this);
        }

        private static Duration positive(Duration d, String name) {
            Objects.requireNonNull(d, name);
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(name + ": " + d + " (expected: > 0)");
            }
            return d;
        }
    }
}
