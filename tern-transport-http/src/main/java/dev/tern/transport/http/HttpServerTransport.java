package dev.tern.transport.http;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import dev.tern.protocol.CodecLimits;
import dev.tern.server.McpServer;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerUpgradeHandler;
import io.netty.handler.codec.http2.CleartextHttp2ServerUpgradeHandler;
import io.netty.handler.codec.http2.DefaultHttp2GoAwayFrame;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2ServerUpgradeCodec;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamFrameToHttpObjectCodec;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ApplicationProtocolNegotiationHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.AsciiString;

/**
 * Serves an {@link McpServer} over Streamable HTTP: HTTP/1.1 with keep-alive, h2c (prior knowledge and Upgrade), and
 * TLS 1.3/1.2 with ALPN offering h2 and http/1.1. Native epoll where the platform has it, NIO otherwise, io_uring
 * when asked for ({@link Builder#ioTransport}). Binds to 127.0.0.1 unless told otherwise.
 */
public final class HttpServerTransport implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger("dev.tern.transport.http");
    private static final RateLimitedLog HANDSHAKE_FAILURES = new RateLimitedLog(System.Logger.Level.INFO);

    private final McpServer server;
    private final HttpOptions options;
    private final McpEndpoint endpoint;
    private final RequestDispatcher dispatcher;
    private final SslContext ssl;
    private final Connections connections;
    private EventLoopGroup boss;
    private EventLoopGroup workers;
    private Channel serverChannel;
    private IoTransport transportInUse;
    private volatile boolean closed;

    private HttpServerTransport(Builder b) {
        this.server = b.server;
        this.options = b.options();
        this.endpoint = new McpEndpoint(server, options);
        Set<String> allowed = new HashSet<>(HostCheck.LOOPBACK);
        allowed.addAll(options.allowedHosts());
        this.dispatcher = new RequestDispatcher(endpoint, options.routes(),
                new HostCheck(allowed, options.allowedOrigins()), options.path());
        this.ssl = options.tls() == null ? null : TlsSupport.context(options.tls());
        this.connections = new Connections(options.connections().maxConnections(),
                options.connections().maxConnectionsPerAddress());
    }

    public static Builder builder(McpServer server) {
        return new Builder(server);
    }

    /**
     * Loads what every start needs and nothing configures: the native I/O transport (Netty extracts and links its
     * library) and the buffer allocator. A launcher may call it on another thread while it builds the server, so that
     * {@link #start()} finds them ready; calling it is never required.
     */
    public static void preload(IoTransport transport) {
        transport.preload();
        io.netty.buffer.ByteBufAllocator.DEFAULT.buffer(1).release();
    }

    /** Binds and starts serving; returns once the port is open. */
    public HttpServerTransport start() throws InterruptedException {
        IoTransport transport = options.ioTransport().resolveAvailable();
        var handlers = transport.handlerFactory();
        try {
            boss = new MultiThreadIoEventLoopGroup(1, handlers);
            workers = new MultiThreadIoEventLoopGroup(0, handlers);
            ServerBootstrap bootstrap = new ServerBootstrap()
                    .group(boss, workers)
                    .channel(transport.serverChannelType())
                    .option(ChannelOption.SO_BACKLOG, 1024)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childOption(ChannelOption.SO_KEEPALIVE, true)
                    .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(64 * 1024, 1024 * 1024))
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            configure(ch.pipeline());
                        }
                    });
            serverChannel = bootstrap.bind(new InetSocketAddress(options.host(), options.port())).sync().channel();
        } catch (RuntimeException | Error | InterruptedException e) {
            // No server to close: the caller never gets one. Its event loops must not outlive the failed start.
            for (EventLoopGroup group : new EventLoopGroup[] {workers, boss}) {
                if (group != null) {
                    group.shutdownGracefully(0, 0, TimeUnit.SECONDS);
                }
            }
            workers = null;
            boss = null;
            throw e;
        }
        transportInUse = transport;
        long sweep = Math.max(1_000, options.sessionIdleTimeout().toMillis() / 4);
        workers.next().scheduleAtFixedRate(endpoint.sessions()::expireIdle, sweep, sweep, TimeUnit.MILLISECONDS);
        LOG.log(System.Logger.Level.DEBUG, "Serving MCP on {0} with {1}", serverChannel.localAddress(), transport);
        Thread.ofPlatform().daemon().name("tern-warm-up").start(() -> {
            try {
                server.warmUp();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.DEBUG, "Warming up failed: {0}", e.toString());
            }
        });
        return this;
    }

    /** The port bound (useful with port 0). */
    public int port() {
        return ((InetSocketAddress) serverChannel.localAddress()).getPort();
    }

    public String url() {
        String host = options.host().contains(":") ? "[" + options.host() + "]" : options.host();
        return (ssl == null ? "http" : "https") + "://" + host + ":" + port() + options.path();
    }

    public boolean tls() {
        return ssl != null;
    }

    /** The I/O transport serving, {@link IoTransport#AUTO} resolved; {@code null} before {@link #start()}. */
    public IoTransport ioTransport() {
        return transportInUse;
    }

    /** Sets up a connection's pipeline; package-private for the benchmarks, which run it on an embedded channel. */
    void configure(ChannelPipeline p) {
        p.addLast(FlushBeforeClose.NAME, FlushBeforeClose.INSTANCE);
        p.addLast("connections", connections);
        p.addLast("idle", new IdleStateHandler(0, 0, options.idleTimeout().toMillis(), TimeUnit.MILLISECONDS));
        if (ssl != null) {
            SslHandler tls = ssl.newHandler(p.channel().alloc());
            tls.setHandshakeTimeoutMillis(options.tls().handshakeTimeout().toMillis());
            p.addLast(RenegotiationGuard.NAME, new RenegotiationGuard());
            p.addLast("tls", tls);
            p.addLast("alpn", new ApplicationProtocolNegotiationHandler(ApplicationProtocolNames.HTTP_1_1) {
                @Override
                protected void configurePipeline(ChannelHandlerContext ctx, String protocol) {
                    if (ApplicationProtocolNames.HTTP_2.equals(protocol)) {
                        ctx.pipeline().addLast(http2FrameCodec(), http2Multiplexer());
                    } else {
                        ctx.pipeline().addLast(RequestHeaderTimeout.NAME,
                                new RequestHeaderTimeout(options.connections().requestHeaderTimeout()));
                        ctx.pipeline().addLast(httpCodec(), new RequestDecoder(dispatcher, options, endpoint, false));
                    }
                }

                @Override
                protected void handshakeFailure(ChannelHandlerContext ctx, Throwable cause) {
                    HANDSHAKE_FAILURES.log("TLS handshake with {0} failed: {1}", ctx.channel().remoteAddress(),
                            cause.getMessage());
                    ctx.close();
                }
            });
            return;
        }
        p.addLast(RequestHeaderTimeout.NAME, new RequestHeaderTimeout(options.connections().requestHeaderTimeout()));
        HttpServerCodec codec = httpCodec();
        HttpServerUpgradeHandler upgrade = new HttpServerUpgradeHandler(codec, protocol -> {
            if (!AsciiString.contentEquals(Http2CodecUtil.HTTP_UPGRADE_PROTOCOL_NAME, protocol)) {
                return null;
            }
            removeHeaderTimeout(p);
            return new Http2ServerUpgradeCodec(http2FrameCodec(), http2Multiplexer());
        }, options.limits().maxMessageBytes());
        // Prior knowledge: the HTTP/1.1 handler stays in front and passes the HTTP/2 bytes through.
        ChannelHandler priorKnowledge = new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                removeHeaderTimeout(ch.pipeline());
                ch.pipeline().addLast(http2FrameCodec(), http2Multiplexer());
            }
        };
        p.addLast("h2c", new CleartextHttp2ServerUpgradeHandler(codec, upgrade, priorKnowledge));
        p.addLast("mcp", new RequestDecoder(dispatcher, options, endpoint, false));
    }

    private static void removeHeaderTimeout(ChannelPipeline p) {
        if (p.get(RequestHeaderTimeout.NAME) != null) {
            p.remove(RequestHeaderTimeout.NAME);
        }
    }

    private HttpServerCodec httpCodec() {
        return new HttpServerCodec(new HttpDecoderConfig()
                .setMaxInitialLineLength(options.maxInitialLineLength())
                .setMaxHeaderSize(options.maxHeaderSize())
                .setMaxChunkSize(64 * 1024));
    }

    private Http2FrameCodec http2FrameCodec() {
        HttpOptions.Http2Limits h2 = options.http2();
        int window = (int) Math.max(1, h2.resetWindow().toSeconds());
        return Http2FrameCodecBuilder.forServer()
                .initialSettings(Http2Settings.defaultSettings()
                        .maxConcurrentStreams(h2.maxConcurrentStreams())
                        .maxHeaderListSize(options.maxHeaderSize())
                        .initialWindowSize(1024 * 1024))
                .validateHeaders(true)
                .validateRequiredPseudoHeaders(true)
                .decoderEnforceMaxRstFramesPerWindow(h2.maxResetsPerWindow(), window)
                .encoderEnforceMaxRstFramesPerWindow(h2.maxResetsPerWindow(), window)
                .encoderEnforceMaxQueuedControlFrames(h2.maxQueuedControlFrames())
                .decoderEnforceMaxConsecutiveEmptyDataFrames(h2.maxConsecutiveEmptyDataFrames())
                .decoderEnforceMaxSmallContinuationFrames(h2.maxSmallContinuationFrames())
                .gracefulShutdownTimeoutMillis(options.shutdownTimeout().toMillis())
                .build();
    }

    private Http2MultiplexHandler http2Multiplexer() {
        return new Http2MultiplexHandler(new ChannelInitializer<Http2StreamChannel>() {
            @Override
            protected void initChannel(Http2StreamChannel ch) {
                ch.pipeline().addLast(FlushBeforeClose.INSTANCE, new Http2StreamFrameToHttpObjectCodec(true),
                        new RequestDecoder(dispatcher, options, endpoint, true));
            }
        });
    }

    /** Open connections (for monitoring and tests). */
    int openConnections() {
        return connections.count();
    }

    /** Write watches pending (each keeps its exchange alive until it fires or is cancelled). */
    int pendingWriteWatches() {
        return endpoint.pendingWriteWatches().get();
    }

    /** Requests being served right now. */
    int inFlight() {
        return endpoint.inFlight();
    }

    /** Whether {@link #close()} has begun. */
    boolean draining() {
        return endpoint.draining();
    }

    /** Open 2026-07-28 {@code subscriptions/listen} requests. */
    int openListens() {
        return endpoint.openListens();
    }

    /** Live legacy sessions. */
    int sessionCount() {
        return endpoint.sessions().size();
    }

    /** Open streams of the 2024-11-05 HTTP+SSE transport. */
    int legacySseConnections() {
        return endpoint.legacySse().size();
    }

    /**
     * Shuts down gracefully: stops accepting, answers new requests 503, ends open 2026-07-28 listens with their
     * result, lets in-flight requests finish within the shutdown timeout, ends open streams with a {@code retry} hint,
     * then closes everything.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        endpoint.drain();
        if (serverChannel != null) {
            serverChannel.close().awaitUninterruptibly();
        }
        // HTTP/2 clients learn at once not to open new streams here; streams in progress go on.
        for (Channel c : connections.open()) {
            c.eventLoop().execute(() -> {
                if (c.pipeline().get(Http2FrameCodec.class) != null) {
                    c.writeAndFlush(new DefaultHttp2GoAwayFrame(Http2Error.NO_ERROR));
                }
            });
        }
        long deadline = System.nanoTime() + options.shutdownTimeout().toNanos();
        // drain() has the open listens answered on their event loops: their answers are awaited as requests are.
        while ((endpoint.inFlight() > 0 || endpoint.openListens() > 0) && System.nanoTime() < deadline) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        endpoint.shutdown(Duration.ofSeconds(2));
        connections.open().close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        if (workers != null) {
            workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
            boss.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
        }
    }

    /** Builds an {@link HttpServerTransport}. */
    public static final class Builder {
        private final McpServer server;
        private String host = "127.0.0.1";
        private int port = 8080;
        private String path = "/mcp";
        private final Set<String> allowedHosts = new HashSet<>();
        private final Set<String> allowedOrigins = new HashSet<>();
        private CodecLimits limits = CodecLimits.DEFAULT;
        private int maxInitialLineLength = 8192;
        private int maxHeaderSize = 16 * 1024;
        private Duration idleTimeout = Duration.ofSeconds(60);
        private Duration sseKeepAlive = Duration.ofSeconds(15);
        private Duration sessionIdleTimeout = Duration.ofMinutes(30);
        private int maxSessions = 10_000;
        private int maxSessionsPerClient = 1_000;
        private int maxInFlight = 4_096;
        private Duration shutdownTimeout = Duration.ofSeconds(10);
        private dev.tern.server.EventStore eventStore = new dev.tern.server.InMemoryEventStore();
        private PrincipalResolver principals = PrincipalResolver.ANONYMOUS;
        private boolean serverTiming;
        private boolean sseReplies;
        private IoTransport ioTransport = IoTransport.AUTO;
        private HttpOptions.LegacySsePaths legacySse = new HttpOptions.LegacySsePaths("/sse", "/messages");
        private java.nio.file.Path certificateChain;
        private java.nio.file.Path privateKey;
        private boolean tls;
        private List<String> tlsProtocols = List.of("TLSv1.3", "TLSv1.2");
        private Duration tlsHandshakeTimeout = Duration.ofSeconds(10);
        private int maxConnections = 10_000;
        private int maxConnectionsPerAddress = 512;
        private Duration requestHeaderTimeout = Duration.ofSeconds(10);
        private Duration requestBodyTimeout = Duration.ofSeconds(30);
        private Duration writeTimeout = Duration.ofSeconds(30);
        private long maxBufferedResponseBytes = 4L * 1024 * 1024;
        private int maxConcurrentStreams = 256;
        private int http2MaxResets = 200;
        private Duration http2ResetWindow = Duration.ofSeconds(30);
        private int http2MaxQueuedControlFrames = 10_000;
        private int http2MaxEmptyDataFrames = 2;
        private int http2MaxSmallContinuationFrames = 16;
        private final List<HttpRoutes.Route> routes = new java.util.ArrayList<>();
        private boolean restFacade;

        private Builder(McpServer server) {
            this.server = Objects.requireNonNull(server, "server");
        }

        public Builder host(String host) {
            this.host = Objects.requireNonNull(host, "host");
            return this;
        }

        public Builder port(int port) {
            if (port < 0 || port > 65_535) {
                throw new IllegalArgumentException("port: " + port + " (expected: 0-65535)");
            }
            this.port = port;
            return this;
        }

        public Builder path(String path) {
            if (!path.startsWith("/")) {
                throw new IllegalArgumentException("path: " + path + " (expected: starting with /)");
            }
            this.path = path;
            return this;
        }

        /** Another Host name to accept besides the loopback names (e.g. when served behind a proxy). */
        public Builder allowHost(String hostName) {
            allowedHosts.add(hostName.toLowerCase(Locale.ROOT));
            return this;
        }

        /** An Origin to accept (e.g. {@code https://app.example}); origins on allowed hosts are always accepted. */
        public Builder allowOrigin(String origin) {
            allowedOrigins.add(origin);
            return this;
        }

        /** Bounds on each message (size, nesting, strings, numbers, batches); the size also bounds request bodies. */
        public Builder limits(CodecLimits limits) {
            this.limits = Objects.requireNonNull(limits, "limits");
            return this;
        }

        /** Longest HTTP/1.1 request line (default 8 KiB); a longer one gets 414. */
        public Builder maxInitialLineLength(int bytes) {
            this.maxInitialLineLength = positive("maxInitialLineLength", bytes);
            return this;
        }

        /**
         * Largest header section (default 16 KiB): HTTP/1.1 headers beyond it get 431; on HTTP/2 it is
         * SETTINGS_MAX_HEADER_LIST_SIZE and a larger header list gets 431 or a stream reset.
         */
        public Builder maxHeaderSize(int bytes) {
            this.maxHeaderSize = positive("maxHeaderSize", bytes);
            return this;
        }

        /** A connection with no traffic either way for this long is closed (default 60 s). */
        public Builder idleTimeout(Duration timeout) {
            this.idleTimeout = positive("idleTimeout", timeout);
            return this;
        }

        /** How often an idle SSE stream gets a keep-alive comment (default 15 s). */
        public Builder sseKeepAlive(Duration every) {
            this.sseKeepAlive = positive("sseKeepAlive", every);
            return this;
        }

        public Builder sessionIdleTimeout(Duration timeout) {
            this.sessionIdleTimeout = positive("sessionIdleTimeout", timeout);
            return this;
        }

        /**
         * Legacy sessions held at once (default 10,000); the same bound applies, each on its own, to the open
         * 2026-07-28 listens and to the 2024-11-05 SSE connections. Beyond it: 503 with Retry-After.
         */
        public Builder maxSessions(int max) {
            this.maxSessions = positive("maxSessions", max);
            return this;
        }

        /**
         * The most one client may hold of each bound {@link #maxSessions} sets (default 1,000): so many legacy
         * sessions, so many open listens, so many 2024-11-05 SSE connections. A client is the principal the
         * {@link #principals resolver} names, or, for an anonymous request, the IP address it connects from (an IPv6
         * address's /64, as for {@link #maxConnectionsPerAddress}); clients that reach the server through one proxy
         * share its address, so such a deployment resolves principals or raises this. Beyond it: 429 with
         * Retry-After, while other clients are still served.
         */
        public Builder maxSessionsPerClient(int max) {
            this.maxSessionsPerClient = positive("maxSessionsPerClient", max);
            return this;
        }

        /**
         * Requests served at once (default 4,096; open listens and streams not counted); beyond it requests get a
         * fast 503 with Retry-After.
         */
        public Builder maxInFlight(int max) {
            this.maxInFlight = positive("maxInFlight", max);
            return this;
        }

        /**
         * How long {@link #close()} lets requests in flight finish (default 10 s). New requests meanwhile get 503
         * with Retry-After, HTTP/2 clients get GOAWAY; at the end open streams close with a {@code retry} hint.
         */
        /**
         * Where the SSE events of legacy sessions are kept so clients can resume a lost stream with
         * {@code Last-Event-ID} (default: in memory, bounded).
         */
        public Builder eventStore(dev.tern.server.EventStore store) {
            this.eventStore = Objects.requireNonNull(store, "store");
            return this;
        }

        /**
         * Serves the deprecated HTTP+SSE transport of 2024-11-05 for old clients: a GET on {@code ssePath} opens the
         * stream, messages are POSTed to {@code messagesPath}. On by default at {@code /sse} and {@code /messages}.
         */
        public Builder legacySse(String ssePath, String messagesPath) {
            if (!ssePath.startsWith("/") || !messagesPath.startsWith("/") || ssePath.equals(messagesPath)) {
                throw new IllegalArgumentException("legacySse: " + ssePath + ", " + messagesPath
                        + " (expected: two different paths starting with /)");
            }
            this.legacySse = new HttpOptions.LegacySsePaths(ssePath, messagesPath);
            return this;
        }

        /** Binds each legacy session to the principal that opened it (see {@link PrincipalResolver}). */
        public Builder principals(PrincipalResolver resolver) {
            this.principals = Objects.requireNonNull(resolver, "resolver");
            return this;
        }

        /**
         * Adds a {@code Server-Timing} header to JSON responses telling where the server's time went: {@code parse},
         * {@code queue} (waiting for a thread), {@code exec} (the handler) and {@code ser} (encoding), in milliseconds.
         * Off by default; {@code tern bench} reports these figures when it finds them.
         */
        public Builder serverTiming(boolean enabled) {
            this.serverTiming = enabled;
            return this;
        }

        /**
         * Answers every POSTed MCP request with an SSE stream, even when its answer is its only message (as the
         * TypeScript SDK does by default). Off by default: a lone successful answer goes as one JSON body, and a
         * stream opens only when a notification or request comes before the answer.
         */
        public Builder sseReplies(boolean enabled) {
            this.sseReplies = enabled;
            return this;
        }

        /**
         * How the event loops reach the sockets (default {@link IoTransport#AUTO}: epoll, else NIO). A native transport
         * asked for by name where the platform lacks it makes {@link #start()} fail.
         */
        public Builder ioTransport(IoTransport transport) {
            this.ioTransport = Objects.requireNonNull(transport, "transport");
            return this;
        }

        /** Serves only Streamable HTTP: no 2024-11-05 HTTP+SSE endpoints. */
        public Builder noLegacySse() {
            this.legacySse = null;
            return this;
        }

        public Builder shutdownTimeout(Duration timeout) {
            this.shutdownTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /** Open connections in total (default 10 000); more are closed as soon as they are accepted. */
        public Builder maxConnections(int max) {
            this.maxConnections = positive("maxConnections", max);
            return this;
        }

        /**
         * Open connections from one client IP address (default 512; a global IPv6 address counts as its /64 network,
         * which one host commonly has to itself); more are closed as soon as accepted.
         */
        public Builder maxConnectionsPerAddress(int max) {
            this.maxConnectionsPerAddress = positive("maxConnectionsPerAddress", max);
            return this;
        }

        /**
         * From the first byte of a request to the end of its headers (default 10 s), against slowloris; then 408
         * and the connection is closed. HTTP/1.1.
         */
        public Builder requestHeaderTimeout(Duration timeout) {
            this.requestHeaderTimeout = positive("requestHeaderTimeout", timeout);
            return this;
        }

        /** From the end of the headers to the end of the body (default 30 s), against slow POSTs; then 408. */
        public Builder requestBodyTimeout(Duration timeout) {
            this.requestBodyTimeout = positive("requestBodyTimeout", timeout);
            return this;
        }

        /**
         * How long a response may make no progress towards a client that does not read (default 30 s); then its
         * stream is reset (HTTP/2) or its connection closed (HTTP/1.1). A request whose stream is dropped in the
         * 2026-07-28 era is cancelled.
         */
        public Builder writeTimeout(Duration timeout) {
            this.writeTimeout = positive("writeTimeout", timeout);
            return this;
        }

        /** Response bytes queued for one slow client (default 4 MiB) before its stream is dropped. */
        public Builder maxBufferedResponseBytes(long bytes) {
            if (bytes <= 0) {
                throw new IllegalArgumentException("maxBufferedResponseBytes: " + bytes + " (expected: > 0)");
            }
            this.maxBufferedResponseBytes = bytes;
            return this;
        }

        /** HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS (default 256); streams beyond it get RST_STREAM REFUSED_STREAM. */
        public Builder maxConcurrentStreams(int max) {
            this.maxConcurrentStreams = positive("maxConcurrentStreams", max);
            return this;
        }

        /**
         * HTTP/2 resets allowed per window (default 200 per 30 s), counted separately for RST_STREAM frames the client
         * sends (Rapid Reset) and those it provokes the server into sending (MadeYouReset); beyond it the connection
         * is closed with GOAWAY ENHANCE_YOUR_CALM.
         */
        public Builder http2MaxResets(int count, Duration window) {
            this.http2MaxResets = positive("http2MaxResets", count);
            this.http2ResetWindow = positive("window", window);
            return this;
        }

        /**
         * HTTP/2 control frames (PING and SETTINGS acknowledgements, RST_STREAM) queued for a client that does not read
         * (default 10 000); beyond it the connection is closed with GOAWAY ENHANCE_YOUR_CALM.
         */
        public Builder http2MaxQueuedControlFrames(int max) {
            this.http2MaxQueuedControlFrames = positive("http2MaxQueuedControlFrames", max);
            return this;
        }

        /** Empty HTTP/2 DATA frames in a row (default 2) before the connection is closed with ENHANCE_YOUR_CALM. */
        public Builder http2MaxConsecutiveEmptyDataFrames(int max) {
            this.http2MaxEmptyDataFrames = positive("http2MaxConsecutiveEmptyDataFrames", max);
            return this;
        }

        /** Small CONTINUATION frames in one header block (default 16) before the connection is closed. */
        public Builder http2MaxSmallContinuationFrames(int max) {
            this.http2MaxSmallContinuationFrames = positive("http2MaxSmallContinuationFrames", max);
            return this;
        }

        /** Serves TLS with this PEM certificate chain and PKCS#8 PEM key. */
        public Builder tls(java.nio.file.Path certificateChain, java.nio.file.Path privateKey) {
            this.certificateChain = Objects.requireNonNull(certificateChain);
            this.privateKey = Objects.requireNonNull(privateKey);
            this.tls = true;
            return this;
        }

        /** Serves TLS with a self-signed certificate made at start-up, for development. */
        public Builder tlsSelfSigned() {
            this.certificateChain = null;
            this.privateKey = null;
            this.tls = true;
            return this;
        }

        /**
         * The TLS versions offered (default TLS 1.3 and 1.2); only {@code TLSv1.3} and {@code TLSv1.2} are accepted.
         * Client-initiated renegotiation on TLS 1.2 is always refused.
         */
        public Builder tlsProtocols(String... protocols) {
            List<String> list = List.of(protocols);
            if (list.isEmpty() || !List.of("TLSv1.3", "TLSv1.2").containsAll(list)) {
                throw new IllegalArgumentException("tlsProtocols: " + list + " (expected: TLSv1.3 and/or TLSv1.2)");
            }
            this.tlsProtocols = list;
            return this;
        }

        /** How long a client may take to complete the TLS handshake (default 10 s). */
        public Builder tlsHandshakeTimeout(Duration timeout) {
            this.tlsHandshakeTimeout = positive("tlsHandshakeTimeout", timeout);
            return this;
        }

        /**
         * Mounts a plain HTTP route next to the MCP endpoint, on the same connections and with the same checks (Host,
         * Origin, body limits, JSON Content-Type on bodies). {@code path} is literal segments and whole-segment
         * {@code {variables}}, e.g. {@code /users/{id}}. The handler runs on a virtual thread of its own, as tool
         * calls do. Routes at the same path with different methods share it; 405 answers other methods. A literal path
         * wins over templates; among templates, the first mounted that matches wins.
         *
         * @param method {@code GET}, {@code POST}, {@code PUT}, {@code PATCH} or {@code DELETE}
         */
        public Builder route(String method, String path, RouteHandler handler) {
            return route(method, path, null, handler);
        }

        /**
         * Mounts a plain HTTP route as {@link #route(String, String, RouteHandler)} does; with the REST façade on, the
         * route and its {@code description} appear in {@code /openapi.json}.
         */
        public Builder route(String method, String path, String description, RouteHandler handler) {
            return mount(method, path, description, HttpRoutes.blocking(Objects.requireNonNull(handler, "handler")));
        }

        /**
         * Mounts a plain HTTP route as {@link #route(String, String, String, RouteHandler)} does, for a handler that
         * never blocks and returns within microseconds (an in-memory lookup): it runs on the connection's event loop,
         * which answers before it reads on, instead of on a virtual thread of its own. A handler that blocks there
         * holds up every connection of that event loop. The counterpart of a
         * {@linkplain dev.tern.server.ToolSpec.Builder#nonBlocking(boolean) non-blocking tool}.
         */
        public Builder nonBlockingRoute(String method, String path, String description, RouteHandler handler) {
            return mount(method, path, description, HttpRoutes.nonBlocking(Objects.requireNonNull(handler, "handler")));
        }

        private Builder mount(String method, String path, String description, HttpRoutes.Dispatch dispatch) {
            String verb = Objects.requireNonNull(method, "method").toUpperCase(Locale.ROOT);
            if (!HttpRoutes.METHODS.contains(verb)) {
                throw new IllegalArgumentException("method: " + method + " (expected: one of " + HttpRoutes.METHODS + ")");
            }
            PathTemplate template = PathTemplate.parse(path);
            if (template.template().startsWith("/rest/") || template.template().equals(RestFacade.OPENAPI)
                    || template.template().equals("/health") || template.template().startsWith("/health/")) {
                throw new IllegalArgumentException("path: " + path + " (reserved for the REST façade or health checks)");
            }
            for (HttpRoutes.Route r : routes) {
                if (r.method().equals(verb) && r.path().template().equals(template.template())) {
                    throw new IllegalArgumentException("route: " + verb + " " + path + " is already mounted");
                }
            }
            routes.add(new HttpRoutes.Route(verb, template, description, dispatch));
            return this;
        }

        /**
         * Serves the server's tools and resources over plain REST next to MCP (default: off):
         * {@code POST /rest/tools/{name}} with the arguments as the JSON body, {@code GET /rest/resources?uri=...},
         * and their OpenAPI 3.1 document at {@code /openapi.json}. Calls go through the same argument validation and
         * handlers as {@code tools/call}, with the same Host/Origin checks and limits. It is off by default because it
         * is a second way into every tool: turn it on deliberately, where whatever guards the MCP endpoint (a
         * gateway, an authorization layer) guards these paths too.
         */
        public Builder restFacade(boolean enabled) {
            this.restFacade = enabled;
            return this;
        }

        HttpOptions options() {
            if (!allowedHosts.isEmpty() || !"127.0.0.1".equals(host)) {
                allowedHosts.add(host.toLowerCase(Locale.ROOT));
            }
            HttpOptions.TlsOptions tlsOptions = tls
                    ? new HttpOptions.TlsOptions(certificateChain, privateKey, tlsProtocols, tlsHandshakeTimeout) : null;
            return new HttpOptions(host, port, path, Set.copyOf(allowedHosts), Set.copyOf(allowedOrigins), limits,
                    maxInitialLineLength, maxHeaderSize, idleTimeout, sseKeepAlive, sessionIdleTimeout, maxSessions,
                    maxSessionsPerClient, maxInFlight, shutdownTimeout, tlsOptions,
                    new HttpOptions.ConnectionLimits(maxConnections, maxConnectionsPerAddress, requestHeaderTimeout,
                            requestBodyTimeout, writeTimeout, maxBufferedResponseBytes),
                    new HttpOptions.Http2Limits(maxConcurrentStreams, http2MaxResets, http2ResetWindow,
                            http2MaxQueuedControlFrames, http2MaxEmptyDataFrames, http2MaxSmallContinuationFrames),
                    eventStore, legacySse, principals, serverTiming, sseReplies, ioTransport, routes());
        }

        private HttpRoutes routes() {
            for (HttpRoutes.Route r : routes) {
                if (r.path().template().equals(path)) {
                    throw new IllegalArgumentException("route: " + r.method() + " " + path + " is the MCP endpoint's path");
                }
                if (legacySse != null && (r.path().template().equals(legacySse.ssePath())
                        || r.path().template().equals(legacySse.messagesPath()))) {
                    throw new IllegalArgumentException("route: " + r.method() + " " + r.path().template()
                            + " is a path of the 2024-11-05 HTTP+SSE transport (see noLegacySse)");
                }
            }
            List<HttpRoutes.Route> all = new java.util.ArrayList<>();
            if (restFacade) {
                if (path.equals(RestFacade.OPENAPI) || path.startsWith("/rest/")) {
                    throw new IllegalArgumentException("path: " + path + " (reserved for the REST façade)");
                }
                // first, so that no template of a plain route can shadow the façade's paths
                all.addAll(new RestFacade(server, limits, new OpenApiDocument(server, routes)).routes());
            }
            all.addAll(routes);
            return new HttpRoutes(all);
        }

        public HttpServerTransport build() {
            return new HttpServerTransport(this);
        }

        private static int positive(String name, int value) {
            if (value <= 0) {
                throw new IllegalArgumentException(name + ": " + value + " (expected: > 0)");
            }
            return value;
        }

        private static Duration positive(String name, Duration value) {
            Objects.requireNonNull(value, name);
            if (value.isNegative() || value.isZero()) {
                throw new IllegalArgumentException(name + ": " + value + " (expected: > 0)");
            }
            return value;
        }
    }
}
