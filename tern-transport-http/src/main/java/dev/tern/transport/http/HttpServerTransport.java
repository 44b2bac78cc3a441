package dev.tern.transport.http;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import dev.tern.auth.RateLimiter;
import dev.tern.auth.ResourceServer;
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
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpHeadersFactory;
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
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ApplicationProtocolNegotiationHandler;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.AsciiString;

/**
 * Serves an {@link McpServer} over Streamable HTTP: HTTP/1.1 with keep-alive, h2c (prior knowledge and Upgrade), and
 * TLS 1.3/1.2 with ALPN offering h2 and http/1.1. Native epoll where the platform has it, NIO otherwise, io_uring
 * when asked for ({@link Builder#ioTransport}). Binds to 127.0.0.1 unless told otherwise.
 */
public final class HttpServerTransport implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger("dev.tern.transport.http");
    private static final RateLimitedLog HANDSHAKE_FAILURES = new RateLimitedLog(System.Logger.Level.INFO);
    /**
     * The decoder gives every request with a body a trailers table, and trailers hardly ever come: a table of two
     * slots instead of Netty's sixteen (it still holds any number of trailers).
     */
    private static final HttpHeadersFactory FEW_TRAILERS = new HttpHeadersFactory() {
        private final DefaultHttpHeadersFactory trailers = DefaultHttpHeadersFactory.trailersFactory();

        @Override
        public HttpHeaders newHeaders() {
            return trailers.newEmptyHeaders();
        }

        @Override
        public HttpHeaders newEmptyHeaders() {
            return trailers.newEmptyHeaders();
        }
    };

    private final McpServer server;
    private final HttpOptions options;
    private final McpEndpoint endpoint;
    private final RequestDispatcher dispatcher;
    private final TlsContexts ssl;
    private final Connections connections;
    private final WebSocketEndpoint webSockets;
    private EventLoopGroup boss;
    private EventLoopGroup workers;
    private Channel serverChannel;
    private IoTransport transportInUse;
    private volatile boolean closed;
    private dev.tern.server.observe.McpObserver.Registration observed;

    private HttpServerTransport(McpServer server, HttpOptions options, HttpRoutes routes,
            ResourceServer resourceServer, RateLimiter rateLimiter) {
        this.server = server;
        this.options = options;
        this.endpoint = new McpEndpoint(server, options, resourceServer, rateLimiter);
        Set<String> allowed = new HashSet<>(HostCheck.LOOPBACK);
        allowed.addAll(options.allowedHosts());
        this.webSockets = options.webSocket().map(w -> new WebSocketEndpoint(server, options, w)).orElse(null);
        this.dispatcher = new RequestDispatcher(endpoint, routes,
                new HostCheck(allowed, options.allowedOrigins()), options.path(), webSockets,
                options.tls().map(HttpOptions.Tls::hsts).map(HttpOptions.Tls.Hsts::headerValue).orElse(null));
        this.ssl = options.tls().map(TlsContexts::new).orElse(null);
        this.connections = new Connections(options.connections().max(), options.connections().maxPerAddress());
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
        if (ssl != null) {
            ssl.start();
        }
        transportInUse = transport;
        observed = server.observer().register(endpoint.stats());
        long sweep = Math.max(1_000, options.sessions().idleTimeout().toMillis() / 4);
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

    /** The settings in effect (the port asked for: {@link #port()} tells the one bound). */
    public HttpOptions options() {
        return options;
    }

    /** The port bound (useful with port 0). */
    public int port() {
        return ((InetSocketAddress) serverChannel.localAddress()).getPort();
    }

    public String url() {
        String host = options.host().contains(":") ? "[" + options.host() + "]" : options.host();
        return (ssl == null ? "http" : "https") + "://" + host + ":" + port() + options.path();
    }

    /** The WebSocket endpoint's URL ({@code ws://} or {@code wss://}), or {@code null} when it is not served. */
    public String webSocketUrl() {
        if (webSockets == null) {
            return null;
        }
        String host = options.host().contains(":") ? "[" + options.host() + "]" : options.host();
        return (ssl == null ? "ws" : "wss") + "://" + host + ":" + port() + webSockets.path();
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
        p.addLast("idle", new IdleTimeout(options.connections().idleTimeout()));
        if (ssl != null) {
            SslHandler tls = ssl.newHandler(p.channel().alloc());
            tls.setHandshakeTimeoutMillis(options.tls().orElseThrow().handshakeTimeout().toMillis());
            p.addLast(RenegotiationGuard.NAME, new RenegotiationGuard());
            p.addLast("tls", tls);
            p.addLast("alpn", new ApplicationProtocolNegotiationHandler(ApplicationProtocolNames.HTTP_1_1) {
                @Override
                protected void configurePipeline(ChannelHandlerContext ctx, String protocol) {
                    endpoint.tlsHandshake(true);
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
                    endpoint.tlsHandshake(false);
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
        }, options.limits().messages().maxMessageBytes());
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
                .setTrailersFactory(FEW_TRAILERS)
                .setMaxInitialLineLength(options.limits().maxInitialLineLength())
                .setMaxHeaderSize(options.limits().maxHeaderSize())
                .setMaxChunkSize(64 * 1024));
    }

    private Http2FrameCodec http2FrameCodec() {
        HttpOptions.Http2 h2 = options.http2();
        int window = (int) Math.max(1, h2.resetWindow().toSeconds());
        return Http2FrameCodecBuilder.forServer()
                .initialSettings(Http2Settings.defaultSettings()
                        .maxConcurrentStreams(h2.maxConcurrentStreams())
                        .maxHeaderListSize(options.limits().maxHeaderSize())
                        .initialWindowSize(1024 * 1024)
                        // RFC 8441: clients may open WebSockets on streams with an extended CONNECT.
                        .connectProtocolEnabled(webSockets != null))
                .validateHeaders(true)
                .validateRequiredPseudoHeaders(true)
                .decoderEnforceMaxRstFramesPerWindow(h2.maxResets(), window)
                .encoderEnforceMaxRstFramesPerWindow(h2.maxResets(), window)
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
                ch.pipeline().addLast(FlushBeforeClose.INSTANCE, new Http2StreamCodec(),
                        new RequestDecoder(dispatcher, options, endpoint, true));
            }
        });
    }

    /** Swaps in a new TLS context if the certificate's files changed (tests call it rather than wait for the poll). */
    boolean reloadTls() {
        return ssl != null && ssl.reloadIfChanged();
    }

    /** Open connections (for monitoring and tests). */
    int openConnections() {
        return connections.count();
    }

    /** The open connections' channels (for tests). */
    io.netty.channel.group.ChannelGroup openChannels() {
        return connections.open();
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

    /** Open WebSocket connections. */
    int webSocketConnections() {
        return webSockets == null ? 0 : webSockets.size();
    }

    /** Of the open WebSocket connections, those on HTTP/2 streams (RFC 8441). */
    int webSocketStreams() {
        return webSockets == null ? 0 : webSockets.http2Streams();
    }

    /** WebSocket connections opened on HTTP/2 streams since the start. */
    long webSocketStreamsOpened() {
        return webSockets == null ? 0 : webSockets.http2Opened();
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
        if (observed != null) {
            observed.close();
        }
        if (ssl != null) {
            ssl.close();
        }
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
        if (webSockets != null) {
            webSockets.drain();
        }
        while ((endpoint.inFlight() > 0 || endpoint.openListens() > 0
                || webSockets != null && webSockets.inFlight() > 0) && System.nanoTime() < deadline) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        endpoint.shutdown(Duration.ofSeconds(2));
        if (webSockets != null) {
            webSockets.closeAll();
        }
        connections.open().close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        if (workers != null) {
            workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
            boss.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
        }
    }

    /**
     * Builds an {@link HttpServerTransport}. The address, the MCP path, Host and Origin checks and the routes are set
     * here; everything else in groups ({@link #limits}, {@link #connections}, {@link #http2}, {@link #tls},
     * {@link #sessions}, {@link #sse}, {@link #webSocket}), each of which may be set more than once.
     */
    public static final class Builder {
        private final McpServer server;
        private String host = "127.0.0.1";
        private int port = 8080;
        private String path = "/mcp";
        private final Set<String> allowedHosts = new HashSet<>();
        private final Set<String> allowedOrigins = new HashSet<>();
        private IoTransport ioTransport = IoTransport.AUTO;
        private Duration shutdownTimeout = Duration.ofSeconds(10);
        private boolean serverTiming;
        private boolean restFacade;
        private final List<HttpRoutes.Route> routes = new java.util.ArrayList<>();
        private final HttpOptions.Limits.Builder limits = new HttpOptions.Limits.Builder();
        private final HttpOptions.ConnectionLimits.Builder connections = new HttpOptions.ConnectionLimits.Builder();
        private final HttpOptions.Http2.Builder http2 = new HttpOptions.Http2.Builder();
        /** Made by the first {@link #tls} call: TLS is off until then. */
        private HttpOptions.Tls.Builder tls;
        private final HttpOptions.Sessions.Builder sessions = new HttpOptions.Sessions.Builder();
        private final HttpOptions.Sse.Builder sse = new HttpOptions.Sse.Builder();
        private final HttpOptions.WebSocket.Builder webSocket = new HttpOptions.WebSocket.Builder();
        private ResourceServer resourceServer;
        private RateLimiter rateLimiter;

        private Builder(McpServer server) {
            this.server = Objects.requireNonNull(server, "server");
        }

        /** The address to bind (default 127.0.0.1). */
        public Builder host(String host) {
            this.host = Objects.requireNonNull(host, "host");
            return this;
        }

        /** The port to bind (default 8080; 0 for any free one). */
        public Builder port(int port) {
            if (port < 0 || port > 65_535) {
                throw new IllegalArgumentException("port: " + port + " (expected: 0-65535)");
            }
            this.port = port;
            return this;
        }

        /** The MCP endpoint's path (default {@code /mcp}). */
        public Builder path(String path) {
            this.path = HttpOptions.absolutePath("path", path);
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

        /**
         * How the event loops reach the sockets (default {@link IoTransport#AUTO}: epoll, else NIO). A native transport
         * asked for by name where the platform lacks it makes {@link #start()} fail.
         */
        public Builder ioTransport(IoTransport transport) {
            this.ioTransport = Objects.requireNonNull(transport, "ioTransport");
            return this;
        }

        /**
         * How long {@link #close()} lets requests in flight finish (default 10 s). New requests meanwhile get 503
         * with Retry-After, HTTP/2 clients get GOAWAY; at the end open streams close with a {@code retry} hint.
         */
        public Builder shutdownTimeout(Duration timeout) {
            this.shutdownTimeout = HttpOptions.positive("shutdownTimeout", timeout);
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

        /** Bounds on requests: message limits, request line and headers, requests in flight. */
        public Builder limits(Consumer<HttpOptions.Limits.Builder> group) {
            group.accept(limits);
            return this;
        }

        /** Bounds on connections: how many, idle and slow-peer timeouts, response bytes buffered. */
        public Builder connections(Consumer<HttpOptions.ConnectionLimits.Builder> group) {
            group.accept(connections);
            return this;
        }

        /** HTTP/2 settings and flood defences. */
        public Builder http2(Consumer<HttpOptions.Http2.Builder> group) {
            group.accept(http2);
            return this;
        }

        /**
         * Serves TLS 1.3/1.2 with ALPN (h2, http/1.1); the group must name a certificate, e.g.
         * {@code tls(t -> t.certificate(chain, key))} or {@code tls(t -> t.selfSigned())}.
         */
        public Builder tls(Consumer<HttpOptions.Tls.Builder> group) {
            if (tls == null) {
                tls = new HttpOptions.Tls.Builder();
            }
            group.accept(tls);
            return this;
        }

        /** Legacy sessions, the per-client shares, and who a client is. */
        public Builder sessions(Consumer<HttpOptions.Sessions.Builder> group) {
            group.accept(sessions);
            return this;
        }

        /** SSE streams: keep-alives, replies as streams, the 2024-11-05 HTTP+SSE transport. */
        public Builder sse(Consumer<HttpOptions.Sse.Builder> group) {
            group.accept(sse);
            return this;
        }

        /**
         * The WebSocket endpoint (served by default at {@code /mcp/ws}): its path, message and frame limits, ping
         * interval and idle timeout, flood limits; {@code webSocket(w -> w.off())} serves none.
         */
        public Builder webSocket(Consumer<HttpOptions.WebSocket.Builder> group) {
            group.accept(webSocket);
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

        /**
         * Makes the server an OAuth 2.1 resource server (default: off): every request to the MCP endpoint (POST, GET
         * streams, DELETE, listens), the 2024-11-05 HTTP+SSE paths, the REST façade, {@code /openapi.json} and the
         * plain routes needs a valid access token in its {@code Authorization} header, and the principal it stands for
         * is the one sessions are bound to and shares are counted by. The health checks and the RFC 9728 metadata
         * ({@link ResourceServer#metadata()}, served here) need none. The resource server stays the caller's to close.
         */
        public Builder auth(ResourceServer resourceServer) {
            this.resourceServer = Objects.requireNonNull(resourceServer, "resourceServer");
            return this;
        }

        /** {@link #auth(ResourceServer)}, with each principal's requests limited by {@code rateLimiter} (429 beyond). */
        public Builder auth(ResourceServer resourceServer, RateLimiter rateLimiter) {
            this.rateLimiter = Objects.requireNonNull(rateLimiter, "rateLimiter");
            return auth(resourceServer);
        }

        public HttpServerTransport build() {
            HttpOptions.Sse sseOptions = sse.build();
            HttpOptions.Limits limitOptions = limits.build();
            HttpOptions.WebSocket webSocketOptions = webSocket.build(limitOptions.messages());
            checkRoutes(sseOptions, webSocketOptions);
            Set<String> hosts = new HashSet<>(allowedHosts);
            if (!hosts.isEmpty() || !"127.0.0.1".equals(host)) {
                hosts.add(host.toLowerCase(Locale.ROOT));
            }
            HttpOptions options = new HttpOptions(host, port, path, hosts, allowedOrigins, ioTransport,
                    shutdownTimeout, serverTiming, restFacade,
                    routes.stream().map(r -> r.method() + " " + r.path().template()).toList(), limitOptions,
                    connections.build(), http2.build(), tls == null ? null : tls.build(), sessions.build(), sseOptions,
                    webSocketOptions, resourceServer);
            List<HttpRoutes.Route> all = new java.util.ArrayList<>();
            if (restFacade) {
                // first, so that no template of a plain route can shadow the façade's paths
                OpenApiDocument document = new OpenApiDocument(server, routes);
                all.addAll(new RestFacade(server, limitOptions.messages(), document, resourceServer,
                        options.sessions().principals()).routes());
            }
            all.addAll(routes);
            return new HttpServerTransport(server, options, new HttpRoutes(all), resourceServer, rateLimiter);
        }

        private void checkRoutes(HttpOptions.Sse sseOptions, HttpOptions.WebSocket webSocketOptions) {
            HttpOptions.Sse.LegacyPaths legacy = sseOptions.legacy().orElse(null);
            if (webSocketOptions != null && (webSocketOptions.path().equals(path) || legacy != null
                    && (webSocketOptions.path().equals(legacy.ssePath())
                            || webSocketOptions.path().equals(legacy.messagesPath())))) {
                throw new IllegalArgumentException("webSocket.path: " + webSocketOptions.path()
                        + " (already the path of the MCP endpoint or the 2024-11-05 HTTP+SSE transport)");
            }
            for (HttpRoutes.Route r : routes) {
                if (webSocketOptions != null && r.path().template().equals(webSocketOptions.path())) {
                    throw new IllegalArgumentException("route: " + r.method() + " " + webSocketOptions.path()
                            + " is the WebSocket endpoint's path (see webSocket(w -> w.off()))");
                }
                if (r.path().template().equals(path)) {
                    throw new IllegalArgumentException("route: " + r.method() + " " + path + " is the MCP endpoint's path");
                }
                if (legacy != null && (r.path().template().equals(legacy.ssePath())
                        || r.path().template().equals(legacy.messagesPath()))) {
                    throw new IllegalArgumentException("route: " + r.method() + " " + r.path().template()
                            + " is a path of the 2024-11-05 HTTP+SSE transport (see sse(s -> s.noLegacy()))");
                }
            }
            if (restFacade && (path.equals(RestFacade.OPENAPI) || path.startsWith("/rest/"))) {
                throw new IllegalArgumentException("path: " + path + " (reserved for the REST façade)");
            }
        }
    }
}
