package dev.tern.client.http;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketClientProtocolConfig;
import io.netty.handler.codec.http.websocketx.WebSocketClientProtocolHandler;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrameAggregator;
import io.netty.handler.codec.http.websocketx.WebSocketVersion;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2SettingsFrame;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;

/**
 * One WebSocket connection ({@code ws://} or {@code wss://}) carrying text or binary messages, with subprotocol {@code mcp} by
 * default; Netty's codec does the framing, masking, pings and the closing handshake. It runs on an upgraded HTTP/1.1
 * connection, or, with {@link Builder#http2(boolean)}, on a stream of an HTTP/2 connection of its own (RFC 8441).
 * Thread-safe: {@link #send} may be called from any thread; messages are handed to the listener on the connection's
 * I/O thread, in order.
 *
 * <pre>{@code
 * WebSocketClient ws = WebSocketClient.builder(URI.create("ws://127.0.0.1:8080/mcp/ws"))
 *         .connect(message -> handle(message), closed -> gone(closed)).join();
 * ws.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}".getBytes(UTF_8));
 * }</pre>
 */
public final class WebSocketClient implements AutoCloseable {
    private final Channel channel;
    /** The TCP connection: {@link #channel} itself over HTTP/1.1, the connection of its stream over HTTP/2. */
    private final Channel connection;
    /** The connection's own I/O thread, stopped on close; {@code null} when it runs on a group it was given. */
    private final EventLoopGroup ownGroup;
    /** What opened this WebSocket, to open others on the same HTTP/2 connection. */
    private final Builder opener;

    private WebSocketClient(Channel channel, Channel connection, EventLoopGroup ownGroup, Builder opener) {
        this.channel = channel;
        this.connection = connection;
        this.ownGroup = ownGroup;
        this.opener = opener;
    }

    /** A builder for a connection to {@code uri} ({@code ws://} or {@code wss://}). */
    public static Builder builder(URI uri) {
        return new Builder(uri);
    }

    /** Sends one text message: {@code utf8} must be UTF-8 (the server closes the connection otherwise). */
    public ChannelFuture send(byte[] utf8) {
        return channel.writeAndFlush(new TextWebSocketFrame(Unpooled.wrappedBuffer(utf8)));
    }

    /** Sends one binary message (a subprotocol such as {@code mcp.cbor} carries its messages so). */
    public ChannelFuture sendBinary(byte[] bytes) {
        return channel.writeAndFlush(new BinaryWebSocketFrame(Unpooled.wrappedBuffer(bytes)));
    }

    public boolean isOpen() {
        return channel.isActive();
    }

    /** Whether this WebSocket runs on an HTTP/2 stream (RFC 8441) rather than on an upgraded HTTP/1.1 connection. */
    public boolean http2() {
        return channel instanceof Http2StreamChannel;
    }

    /** The TCP connection under the WebSocket (for tests: over HTTP/2 it may carry other streams). */
    Channel connection() {
        return connection;
    }

    /**
     * Opens another WebSocket on this one's HTTP/2 connection, with the same options; it ends when the connection
     * does, which is when this WebSocket closes.
     */
    CompletableFuture<WebSocketClient> openStream(Consumer<byte[]> messages, Consumer<Closed> closed) {
        if (!http2()) {
            throw new IllegalStateException("only an HTTP/2 connection carries several WebSockets");
        }
        CompletableFuture<WebSocketClient> opened = new CompletableFuture<>();
        Http2WebSocketStream.open(connection, opener.uri, opener.tls, opener.subprotocol, opener.maxMessageBytes,
                opener.connectTimeout.toMillis(), opened,
                stream -> new WebSocketClient(stream, connection, null, opener),
                new Handler(null, opened, messages, closed));
        return opened;
    }

    /** Sends a close frame (1000), closes the connection and stops its own I/O thread. */
    @Override
    public void close() {
        if (channel.isActive()) {
            channel.writeAndFlush(new CloseWebSocketFrame(1000, "")).awaitUninterruptibly(1, TimeUnit.SECONDS);
        }
        channel.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        if (connection != channel) {
            connection.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        }
        if (ownGroup != null) {
            ownGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
    }

    /** Why a connection ended: the close frame's status and reason, or -1 when it ended without one. */
    public record Closed(int status, String reason) {
    }

    public static final class Builder {
        private final URI uri;
        private final boolean tls;
        private ClientTls clientTls;
        private String subprotocol = "mcp";
        private Duration connectTimeout = Duration.ofSeconds(10);
        private int maxMessageBytes = 64 * 1024 * 1024;
        private EventLoopGroup group;
        private boolean http2;

        private Builder(URI uri) {
            this.uri = Objects.requireNonNull(uri, "uri");
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            if (!scheme.equals("ws") && !scheme.equals("wss")) {
                throw new IllegalArgumentException("uri: " + uri + " (expected: ws:// or wss://)");
            }
            if (uri.getHost() == null) {
                throw new IllegalArgumentException("uri: " + uri + " (expected: a host)");
            }
            this.tls = scheme.equals("wss");
        }

        /** Whom to trust over {@code wss://} (default: the JDK's certificate authorities). */
        public Builder tls(ClientTls tls) {
            this.clientTls = Objects.requireNonNull(tls, "tls");
            return this;
        }

        /** The subprotocol asked for (default {@code mcp}). */
        public Builder subprotocol(String subprotocol) {
            this.subprotocol = Objects.requireNonNull(subprotocol, "subprotocol");
            return this;
        }

        /** How long the TCP connect, the TLS handshake and the upgrade may take together (default 10 s). */
        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /** Largest message accepted from the server (default 64 MiB); a larger one closes the connection. */
        public Builder maxMessageBytes(int bytes) {
            if (bytes <= 0) {
                throw new IllegalArgumentException("maxMessageBytes: " + bytes + " (expected: > 0)");
            }
            this.maxMessageBytes = bytes;
            return this;
        }

        /**
         * Runs the connection on this event loop group (epoll or NIO) instead of an I/O thread of its own; the
         * connection does not shut it down. For many connections, such as a benchmark's.
         */
        public Builder eventLoopGroup(EventLoopGroup group) {
            this.group = Objects.requireNonNull(group, "group");
            return this;
        }

        /**
         * Opens the WebSocket on an HTTP/2 stream with an RFC 8441 extended CONNECT (default: off, an HTTP/1.1
         * upgrade): over {@code wss://} TLS offers h2 by ALPN, over {@code ws://} HTTP/2 is spoken with prior
         * knowledge (h2c). A server that answers with HTTP/1.1, or whose HTTP/2 settings do not allow extended
         * CONNECT, gets a new connection with the HTTP/1.1 upgrade instead.
         */
        public Builder http2(boolean enabled) {
            this.http2 = enabled;
            return this;
        }

        /**
         * Connects and upgrades. The future completes once the server accepted the upgrade, or fails with
         * {@link HttpClientException}. {@code messages} gets each text message (UTF-8) or binary message on the I/O thread;
         * {@code closed} is told once when the connection ends.
         */
        public CompletableFuture<WebSocketClient> connect(Consumer<byte[]> messages, Consumer<Closed> closed) {
            Objects.requireNonNull(messages, "messages");
            Objects.requireNonNull(closed, "closed");
            if (!http2) {
                return connect(messages, closed, false);
            }
            CompletableFuture<WebSocketClient> opened = new CompletableFuture<>();
            connect(messages, closed, true).whenComplete((ws, e) -> {
                if (e == null) {
                    opened.complete(ws);
                } else if (e instanceof NoExtendedConnect
                        || e instanceof java.util.concurrent.CompletionException && e.getCause() instanceof NoExtendedConnect) {
                    connect(messages, closed, false).whenComplete((again, failed) -> {
                        if (failed == null) {
                            opened.complete(again);
                        } else {
                            opened.completeExceptionally(failed);
                        }
                    });
                } else {
                    opened.completeExceptionally(e);
                }
            });
            return opened;
        }

        private CompletableFuture<WebSocketClient> connect(Consumer<byte[]> messages, Consumer<Closed> closed,
                boolean tryHttp2) {
            boolean epoll = Epoll.isAvailable();
            EventLoopGroup own = group != null ? null : new MultiThreadIoEventLoopGroup(1,
                    epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
            EventLoopGroup loops = own != null ? own : group;
            boolean nativeLoops = epoll && (own != null
                    || loops.next() instanceof io.netty.channel.IoEventLoop loop && loop.isIoType(EpollIoHandler.class));
            int port = uri.getPort() > 0 ? uri.getPort() : tls ? 443 : 80;
            CompletableFuture<WebSocketClient> opened = new CompletableFuture<>();
            ClientTls trust = tls ? (clientTls != null ? clientTls : ClientTls.system()) : null;
            Builder opener = this;
            Bootstrap bootstrap = new Bootstrap().group(loops)
                    .channel(nativeLoops ? EpollSocketChannel.class : NioSocketChannel.class)
                    .option(ChannelOption.TCP_NODELAY, true)
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE,
                            connectTimeout.toMillis()))
                    .handler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            if (trust == null) {
                                if (tryHttp2) {
                                    installHttp2(ch, own, opened, messages, closed, opener);
                                } else {
                                    installHttp1(ch, own, opened, messages, closed);
                                }
                                return;
                            }
                            SslHandler ssl = new SslHandler(trust.newEngine(uri.getHost(), port,
                                    tryHttp2 ? List.of("h2", "http/1.1") : List.of("http/1.1")));
                            ssl.setHandshakeTimeout(connectTimeout.toMillis(), TimeUnit.MILLISECONDS);
                            ch.pipeline().addLast(ssl);
                            if (!tryHttp2) {
                                installHttp1(ch, own, opened, messages, closed);
                                return;
                            }
                            ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                                @Override
                                public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
                                    if (!(evt instanceof SslHandshakeCompletionEvent done)) {
                                        super.userEventTriggered(ctx, evt);
                                        return;
                                    }
                                    ctx.pipeline().remove(this);
                                    if (done.isSuccess()
                                            && ApplicationProtocolNames.HTTP_2.equals(ssl.engine().getApplicationProtocol())) {
                                        installHttp2(ch, own, opened, messages, closed, opener);
                                        return;
                                    }
                                    // No h2 by ALPN: the HTTP/1.1 upgrade, on a new connection.
                                    opened.completeExceptionally(done.isSuccess() ? new NoExtendedConnect()
                                            : new HttpClientException("TLS handshake with " + uri + " failed: "
                                                    + done.cause().getMessage(), done.cause()));
                                    ctx.close();
                                    if (own != null) {
                                        own.shutdownGracefully(0, 0, TimeUnit.SECONDS);
                                    }
                                }
                            });
                        }
                    });
            bootstrap.connect(uri.getHost(), port).addListener((ChannelFuture f) -> {
                if (!f.isSuccess()) {
                    opened.completeExceptionally(new HttpClientException("cannot connect to " + uri + ": "
                            + f.cause().getMessage(), f.cause()));
                    if (own != null) {
                        own.shutdownGracefully(0, 0, TimeUnit.SECONDS);
                    }
                }
            });
            return opened;
        }

        private void installHttp1(Channel ch, EventLoopGroup own, CompletableFuture<WebSocketClient> opened,
                Consumer<byte[]> messages, Consumer<Closed> closed) {
            WebSocketClientProtocolConfig config = WebSocketClientProtocolConfig.newBuilder()
                    .webSocketUri(uri)
                    .subprotocol(subprotocol)
                    .version(WebSocketVersion.V13)
                    .maxFramePayloadLength(maxMessageBytes)
                    .handleCloseFrames(false)
                    .generateOriginHeader(false)
                    .handshakeTimeoutMillis(connectTimeout.toMillis())
                    .build();
            Builder opener = this;
            ch.pipeline().addLast(new HttpClientCodec(), new HttpObjectAggregator(64 * 1024),
                    new WebSocketClientProtocolHandler(config),
                    new WebSocketFrameAggregator(maxMessageBytes),
                    new Handler(own, opened, messages, closed) {
                        @Override
                        WebSocketClient opened(Channel channel) {
                            return new WebSocketClient(channel, channel, own, opener);
                        }
                    });
        }

        /**
         * HTTP/2 on {@code ch}; once the server's settings arrive, the WebSocket's stream if they allow extended
         * CONNECT, otherwise the connection closes and {@code opened} fails with {@link NoExtendedConnect}.
         */
        private void installHttp2(Channel ch, EventLoopGroup own, CompletableFuture<WebSocketClient> opened,
                Consumer<byte[]> messages, Consumer<Closed> closed, Builder opener) {
            ch.pipeline().addLast(Http2FrameCodecBuilder.forClient()
                            .initialSettings(Http2Settings.defaultSettings().pushEnabled(false))
                            .build(),
                    new Http2MultiplexHandler(new ChannelInboundHandlerAdapter()),
                    new ChannelInboundHandlerAdapter() {
                        private boolean settled;

                        @Override
                        public void channelRead(ChannelHandlerContext ctx, Object msg) {
                            try {
                                if (!(msg instanceof Http2SettingsFrame settings) || settled) {
                                    return;
                                }
                                settled = true;
                                if (!Boolean.TRUE.equals(settings.settings().connectProtocolEnabled())) {
                                    opened.completeExceptionally(new NoExtendedConnect());
                                    ctx.close();
                                    if (own != null) {
                                        own.shutdownGracefully(0, 0, TimeUnit.SECONDS);
                                    }
                                    return;
                                }
                                Http2WebSocketStream.open(ch, uri, tls, subprotocol, maxMessageBytes,
                                        connectTimeout.toMillis(), opened, stream -> {
                                            // The connection is this WebSocket's: it ends with the stream.
                                            stream.closeFuture().addListener(f -> ch.close());
                                            return new WebSocketClient(stream, ch, own, opener);
                                        }, new Handler(own, opened, messages, closed));
                            } finally {
                                io.netty.util.ReferenceCountUtil.release(msg);
                            }
                        }

                        @Override
                        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
                            if (!settled) {
                                // Not an HTTP/2 server (h2c with prior knowledge refused): the HTTP/1.1 upgrade.
                                opened.completeExceptionally(new NoExtendedConnect());
                                if (own != null) {
                                    own.shutdownGracefully(0, 0, TimeUnit.SECONDS);
                                }
                            } else {
                                opened.completeExceptionally(new HttpClientException("the connection to " + uri
                                        + " closed before the WebSocket opened"));
                            }
                            super.channelInactive(ctx);
                        }

                        @Override
                        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                            opened.completeExceptionally(new HttpClientException("HTTP/2 connection to " + uri
                                    + " failed: " + cause.getMessage(), cause));
                            ctx.close();
                        }
                    });
        }
    }

    /** The server does not take WebSockets over HTTP/2: the caller falls back to the HTTP/1.1 upgrade. */
    private static final class NoExtendedConnect extends HttpClientException {
        private static final long serialVersionUID = 1L;

        NoExtendedConnect() {
            super("the server does not offer WebSockets over HTTP/2 (SETTINGS_ENABLE_CONNECT_PROTOCOL)");
        }
    }

    /** Completes the upgrade, hands text messages on, answers the server's close and reports the end. */
    static class Handler extends SimpleChannelInboundHandler<WebSocketFrame> {
        private final EventLoopGroup ownGroup;
        private final CompletableFuture<WebSocketClient> opened;
        private final Consumer<byte[]> messages;
        private final Consumer<Closed> closed;
        private Closed closeFrame;

        Handler(EventLoopGroup ownGroup, CompletableFuture<WebSocketClient> opened, Consumer<byte[]> messages,
                Consumer<Closed> closed) {
            this.ownGroup = ownGroup;
            this.opened = opened;
            this.messages = messages;
            this.closed = closed;
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
            if (evt == WebSocketClientProtocolHandler.ClientHandshakeStateEvent.HANDSHAKE_COMPLETE) {
                opened.complete(opened(ctx.channel()));
            } else if (evt == WebSocketClientProtocolHandler.ClientHandshakeStateEvent.HANDSHAKE_TIMEOUT) {
                fail(ctx, new HttpClientException("no WebSocket upgrade within the connect timeout"));
            }
            super.userEventTriggered(ctx, evt);
        }

        /** The WebSocket once the HTTP/1.1 upgrade completed on {@code channel}. */
        WebSocketClient opened(Channel channel) {
            throw new IllegalStateException("not an HTTP/1.1 upgrade");
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, WebSocketFrame frame) {
            if (frame instanceof TextWebSocketFrame || frame instanceof BinaryWebSocketFrame) {
                messages.accept(ByteBufUtil.getBytes(frame.content()));
            } else if (frame instanceof CloseWebSocketFrame close) {
                closeFrame = new Closed(close.statusCode(), close.reasonText());
                ctx.writeAndFlush(new CloseWebSocketFrame(Math.max(close.statusCode(), 1000), ""))
                        .addListener(f -> ctx.close());
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            fail(ctx, new HttpClientException("the connection closed before the WebSocket upgrade"
                    + (closeFrame == null ? "" : " (" + closeFrame.status() + " " + closeFrame.reason() + ")")));
            closed.accept(closeFrame != null ? closeFrame : new Closed(-1, ""));
            super.channelInactive(ctx);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            fail(ctx, new HttpClientException("WebSocket upgrade failed: " + cause.getMessage(), cause));
            ctx.close();
        }

        private void fail(ChannelHandlerContext ctx, HttpClientException e) {
            if (opened.completeExceptionally(e)) {
                ctx.close();
                if (ownGroup != null) {
                    ownGroup.shutdownGracefully(0, 0, TimeUnit.SECONDS);
                }
            }
        }
    }
}
