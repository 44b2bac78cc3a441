package dev.tern.client.http;

import java.net.URI;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.websocketx.WebSocket13FrameDecoder;
import io.netty.handler.codec.http.websocketx.WebSocket13FrameEncoder;
import io.netty.handler.codec.http.websocketx.WebSocketDecoderConfig;
import io.netty.handler.codec.http.websocketx.WebSocketFrameAggregator;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2ResetFrame;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamChannelBootstrap;
import io.netty.util.ReferenceCountUtil;

/**
 * Opens a WebSocket on a new stream of an HTTP/2 connection with an RFC 8441 extended CONNECT ({@code :protocol
 * websocket}), and once the server answers 200 carries the WebSocket's frames in the stream's DATA frames with
 * Netty's WebSocket codec (client frames masked, as over HTTP/1.1). The stream's END_STREAM or reset ends the
 * WebSocket; closing it sends END_STREAM.
 */
final class Http2WebSocketStream {
    private Http2WebSocketStream() {
    }

    /**
     * Opens a stream on {@code connection} (HTTP/2, the server's settings allowing extended CONNECT) and completes
     * {@code opened} with the WebSocket, or fails it with the server's status.
     */
    static void open(Channel connection, URI uri, boolean tls, String subprotocol, int maxMessageBytes,
            long timeoutMillis, CompletableFuture<WebSocketClient> opened,
            java.util.function.Function<Http2StreamChannel, WebSocketClient> wrap, WebSocketClient.Handler handler) {
        new Http2StreamChannelBootstrap(connection).handler(new ChannelInitializer<Http2StreamChannel>() {
            @Override
            protected void initChannel(Http2StreamChannel ch) {
                ch.pipeline().addLast(new Handshake(opened, subprotocol, maxMessageBytes, timeoutMillis, wrap,
                        handler));
            }
        }).open().addListener(f -> {
            if (!f.isSuccess()) {
                opened.completeExceptionally(new HttpClientException("cannot open an HTTP/2 stream to " + uri + ": "
                        + f.cause().getMessage(), f.cause()));
                return;
            }
            Http2StreamChannel stream = (Http2StreamChannel) f.getNow();
            Http2Headers headers = new DefaultHttp2Headers()
                    .method(HttpMethod.CONNECT.asciiName())
                    .scheme(tls ? "https" : "http")
                    .authority(uri.getHost() + (uri.getPort() > 0 ? ":" + uri.getPort() : ""))
                    .path(uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/"
                            : uri.getRawPath() + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery()));
            headers.set(Http2Headers.PseudoHeaderName.PROTOCOL.value(), "websocket");
            headers.set(HttpHeaderNames.SEC_WEBSOCKET_VERSION, "13");
            headers.set(HttpHeaderNames.SEC_WEBSOCKET_PROTOCOL, subprotocol);
            stream.writeAndFlush(new DefaultHttp2HeadersFrame(headers, false)).addListener(w -> {
                if (!w.isSuccess()) {
                    opened.completeExceptionally(new HttpClientException("cannot send the extended CONNECT to "
                            + uri + ": " + w.cause().getMessage(), w.cause()));
                    stream.close();
                }
            });
        });
    }

    /** Waits for the answer to the CONNECT, then puts the WebSocket's handlers on the stream. */
    private static final class Handshake extends ChannelInboundHandlerAdapter {
        private final CompletableFuture<WebSocketClient> opened;
        private final String subprotocol;
        private final int maxMessageBytes;
        private final long timeoutMillis;
        private final java.util.function.Function<Http2StreamChannel, WebSocketClient> wrap;
        private final WebSocketClient.Handler handler;
        private ScheduledFuture<?> timeout;

        Handshake(CompletableFuture<WebSocketClient> opened, String subprotocol, int maxMessageBytes,
                long timeoutMillis, java.util.function.Function<Http2StreamChannel, WebSocketClient> wrap,
                WebSocketClient.Handler handler) {
            this.opened = opened;
            this.subprotocol = subprotocol;
            this.maxMessageBytes = maxMessageBytes;
            this.timeoutMillis = timeoutMillis;
            this.wrap = wrap;
            this.handler = handler;
        }

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            timeout = ctx.executor().schedule(() -> fail(ctx, new HttpClientException(
                    "no answer to the WebSocket's extended CONNECT within the connect timeout")),
                    timeoutMillis, TimeUnit.MILLISECONDS);
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            try {
                if (!(msg instanceof Http2HeadersFrame answer)) {
                    return;
                }
                CharSequence status = answer.headers().status();
                if (status == null || !"200".contentEquals(status)) {
                    fail(ctx, new HttpClientException("the server refused the WebSocket (HTTP/2 extended CONNECT): "
                            + "status " + status));
                    return;
                }
                CharSequence chosen = answer.headers().get(HttpHeaderNames.SEC_WEBSOCKET_PROTOCOL);
                if (chosen != null && !subprotocol.contentEquals(chosen)) {
                    fail(ctx, new HttpClientException("the server chose subprotocol " + chosen + ", not "
                            + subprotocol));
                    return;
                }
                timeout.cancel(false);
                Http2StreamChannel stream = (Http2StreamChannel) ctx.channel();
                ctx.pipeline().addLast(new Frames(),
                        new WebSocket13FrameEncoder(true),
                        new WebSocket13FrameDecoder(WebSocketDecoderConfig.newBuilder()
                                .maxFramePayloadLength(maxMessageBytes)
                                .expectMaskedFrames(false)
                                .allowExtensions(false)
                                .build()),
                        new WebSocketFrameAggregator(maxMessageBytes),
                        handler);
                ctx.pipeline().remove(this);
                opened.complete(wrap.apply(stream));
            } finally {
                ReferenceCountUtil.release(msg);
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            fail(ctx, new HttpClientException("the stream ended before the server answered the extended CONNECT"));
            super.channelInactive(ctx);
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (evt instanceof Http2ResetFrame reset) {
                fail(ctx, new HttpClientException("the server reset the extended CONNECT's stream (error "
                        + reset.errorCode() + ")"));
            }
            ReferenceCountUtil.release(evt);
        }

        private void fail(ChannelHandlerContext ctx, HttpClientException e) {
            if (timeout != null) {
                timeout.cancel(false);
            }
            if (opened.completeExceptionally(e)) {
                ctx.channel().parent().close();
            }
        }
    }

    /**
     * DATA frames to bytes for the WebSocket decoder and the encoder's bytes to DATA frames; END_STREAM or a reset
     * from the server closes the WebSocket, a close sends END_STREAM first.
     */
    private static final class Frames extends ChannelDuplexHandler {
        private boolean outputEnded;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof Http2DataFrame data) {
                boolean last = data.isEndStream();
                ctx.fireChannelRead(data.content());
                if (last) {
                    // The server has ended its side: the WebSocket is over; ending ours closes the stream.
                    ctx.channel().close();
                }
            } else {
                ReferenceCountUtil.release(msg);
            }
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
            if (evt instanceof Http2ResetFrame) {
                ReferenceCountUtil.release(evt);
                outputEnded = true;
                ctx.close();
                return;
            }
            super.userEventTriggered(ctx, evt);
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            ctx.write(msg instanceof ByteBuf bytes ? new DefaultHttp2DataFrame(bytes, false) : msg, promise);
        }

        @Override
        public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
            Http2Stream.State state = ((Http2StreamChannel) ctx.channel()).stream().state();
            if (!outputEnded && ctx.channel().isActive()
                    && (state == Http2Stream.State.OPEN || state == Http2Stream.State.HALF_CLOSED_REMOTE)) {
                outputEnded = true;
                ctx.writeAndFlush(new DefaultHttp2DataFrame(Unpooled.EMPTY_BUFFER, true));
            }
            ctx.close(promise);
        }
    }
}
