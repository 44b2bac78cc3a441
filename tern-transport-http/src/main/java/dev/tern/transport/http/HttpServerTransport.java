package dev.tern.transport.http;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashSet;
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
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerUpgradeHandler;
import io.netty.handler.codec.http2.CleartextHttp2ServerUpgradeHandler;
import io.netty.handler.codec.http2.Http2CodecUtil;
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
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.AsciiString;

/**
 * Serves an {@link McpServer} over Streamable HTTP: HTTP/1.1 with keep-alive, h2c (prior knowledge and Upgrade), and
 * TLS 1.3/1.2 with ALPN offering h2 and http/1.1. Native epoll where the platform has it, NIO otherwise. Binds to
 * 127.0.0.1 unless told otherwise.
 */
public final class HttpServerTransport implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger("dev.tern.transport.http");

    private final McpServer server;
    private final HttpOptions options;
    private final McpEndpoint endpoint;
    private final HostCheck hosts;
    private final SslContext ssl;
    private EventLoopGroup boss;
    private EventLoopGroup workers;
    private Channel serverChannel;
    private volatile boolean closed;

    private HttpServerTransport(Builder b) {
        this.server = b.server;
        this.options = b.options();
        this.endpoint = new McpEndpoint(server, options);
        Set<String> allowed = new HashSet<>(HostCheck.LOOPBACK);
        allowed.addAll(options.allowedHosts());
        this.hosts = new HostCheck(allowed, options.allowedOrigins());
        this.ssl = options.tls() == null ? null : TlsSupport.context(options.tls());
    }

    public static Builder builder(McpServer server) {
        return new Builder(server);
    }

    /** Binds and starts serving; returns once the port is open. */
    public HttpServerTransport start() throws InterruptedException {
        boolean epoll = Epoll.isAvailable();
        IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        Class<? extends ServerChannel> channelType = epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
        boss = new MultiThreadIoEventLoopGroup(1, io);
        workers = new MultiThreadIoEventLoopGroup(0, io);
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(boss, workers)
                .channel(channelType)
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
        long sweep = Math.max(1_000, options.sessionIdleTimeout().toMillis() / 4);
        workers.next().scheduleAtFixedRate(endpoint.sessions()::expireIdle, sweep, sweep, TimeUnit.MILLISECONDS);
        LOG.log(System.Logger.Level.DEBUG, "Serving MCP on {0} with {1}", serverChannel.localAddress(), epoll ? "epoll" : "NIO");
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

    private void configure(ChannelPipeline p) {
        p.addLast("idle", new IdleStateHandler(0, 0, options.idleTimeout().toMillis(), TimeUnit.MILLISECONDS));
        if (ssl != null) {
            p.addLast("tls", ssl.newHandler(p.channel().alloc()));
            p.addLast("alpn", new ApplicationProtocolNegotiationHandler(ApplicationProtocolNames.HTTP_1_1) {
                @Override
                protected void configurePipeline(ChannelHandlerContext ctx, String protocol) {
                    if (ApplicationProtocolNames.HTTP_2.equals(protocol)) {
                        ctx.pipeline().addLast(http2FrameCodec(), http2Multiplexer());
                    } else {
                        ctx.pipeline().addLast(httpCodec(), new McpHttpHandler(endpoint, options, hosts, false));
                    }
                }
            });
            return;
        }
        HttpServerCodec codec = httpCodec();
        HttpServerUpgradeHandler upgrade = new HttpServerUpgradeHandler(codec, protocol ->
                AsciiString.contentEquals(Http2CodecUtil.HTTP_UPGRADE_PROTOCOL_NAME, protocol)
                        ? new Http2ServerUpgradeCodec(http2FrameCodec(), http2Multiplexer()) : null,
                options.limits().maxMessageBytes());
        // Prior knowledge: the HTTP/1.1 handler stays in front and passes the HTTP/2 bytes through.
        ChannelHandler priorKnowledge = new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(http2FrameCodec(), http2Multiplexer());
            }
        };
        p.addLast("h2c", new CleartextHttp2ServerUpgradeHandler(codec, upgrade, priorKnowledge));
        p.addLast("mcp", new McpHttpHandler(endpoint, options, hosts, false));
    }

    private HttpServerCodec httpCodec() {
        return new HttpServerCodec(new HttpDecoderConfig()
                .setMaxInitialLineLength(options.maxInitialLineLength())
                .setMaxHeaderSize(options.maxHeaderSize())
                .setMaxChunkSize(64 * 1024));
    }

    private Http2FrameCodec http2FrameCodec() {
        return Http2FrameCodecBuilder.forServer()
                .initialSettings(Http2Settings.defaultSettings()
                        .maxConcurrentStreams(options.maxConcurrentStreams())
                        .maxHeaderListSize(options.maxHeaderSize())
                        .initialWindowSize(1024 * 1024))
                .validateHeaders(true)
                .build();
    }

    private Http2MultiplexHandler http2Multiplexer() {
        return new Http2MultiplexHandler(new ChannelInitializer<Http2StreamChannel>() {
            @Override
            protected void initChannel(Http2StreamChannel ch) {
                ch.pipeline().addLast(new Http2StreamFrameToHttpObjectCodec(true),
                        new McpHttpHandler(endpoint, options, hosts, true));
            }
        });
    }

    /**
     * Shuts down gracefully: stops accepting, answers new requests 503, lets in-flight requests finish within the
     * shutdown timeout, ends open streams with a {@code retry} hint, then closes everything.
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
        long deadline = System.nanoTime() + options.shutdownTimeout().toNanos();
        while (endpoint.inFlight() > 0 && System.nanoTime() < deadline) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        endpoint.shutdown(Duration.ofSeconds(2));
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
        private Duration idleTimeout = Duration.ofSeconds(60);
        private Duration sseKeepAlive = Duration.ofSeconds(15);
        private Duration sessionIdleTimeout = Duration.ofMinutes(30);
        private int maxSessions = 10_000;
        private int maxInFlight = 4_096;
        private int maxConcurrentStreams = 256;
        private Duration shutdownTimeout = Duration.ofSeconds(10);
        private HttpOptions.TlsOptions tls;

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

        public Builder limits(CodecLimits limits) {
            this.limits = Objects.requireNonNull(limits, "limits");
            return this;
        }

        public Builder idleTimeout(Duration timeout) {
            this.idleTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        public Builder sessionIdleTimeout(Duration timeout) {
            this.sessionIdleTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        public Builder maxSessions(int max) {
            this.maxSessions = max;
            return this;
        }

        /** Requests served at once; beyond it requests get a fast 503 with Retry-After. */
        public Builder maxInFlight(int max) {
            this.maxInFlight = max;
            return this;
        }

        public Builder shutdownTimeout(Duration timeout) {
            this.shutdownTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /** Serves TLS with this PEM certificate chain and PKCS#8 PEM key. */
        public Builder tls(java.nio.file.Path certificateChain, java.nio.file.Path privateKey) {
            this.tls = new HttpOptions.TlsOptions(Objects.requireNonNull(certificateChain), Objects.requireNonNull(privateKey));
            return this;
        }

        /** Serves TLS with a self-signed certificate made at start-up, for development. */
        public Builder tlsSelfSigned() {
            this.tls = new HttpOptions.TlsOptions(null, null);
            return this;
        }

        HttpOptions options() {
            if (!allowedHosts.isEmpty() || !"127.0.0.1".equals(host)) {
                allowedHosts.add(host.toLowerCase(Locale.ROOT));
            }
            return new HttpOptions(host, port, path, Set.copyOf(allowedHosts), Set.copyOf(allowedOrigins), limits,
                    8192, 16 * 1024, idleTimeout, sseKeepAlive, sessionIdleTimeout, maxSessions, maxInFlight,
                    maxConcurrentStreams, shutdownTimeout, tls);
        }

        public HttpServerTransport build() {
            return new HttpServerTransport(this);
        }
    }
}
