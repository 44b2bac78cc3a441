package dev.tern.transport.http;

import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2ResetFrame;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.util.ReferenceCountUtil;

/**
 * Carries a WebSocket's bytes on the HTTP/2 stream of an RFC 8441 extended CONNECT: the DATA frames' contents go up
 * to Netty's WebSocket frame decoder, the encoder's bytes go out as DATA frames. END_STREAM is the stream's end of
 * input, as a TCP FIN is for a WebSocket over HTTP/1.1: the connection closes. A close ends the stream with
 * END_STREAM rather than a reset, and waits a little for the client's END_STREAM, as {@link LingeringClose} waits for
 * a TCP client, because a reset may destroy a close frame still on its way.
 */
final class WebSocketOverHttp2 extends ChannelDuplexHandler {
    static final String NAME = "ws-h2";
    private static final long LINGER_MILLIS = 2_000;

    /** The client has ended its side of the stream. */
    private boolean inputEnded;
    /** END_STREAM has been sent. */
    private boolean outputEnded;
    /** The close waiting for the client's END_STREAM, or {@code null}. */
    private ChannelPromise lingering;
    private ChannelHandlerContext ctx;

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof Http2DataFrame data) {
            boolean last = data.isEndStream();
            if (lingering != null || inputEnded) {
                data.release();
            } else {
                ctx.fireChannelRead(data.content());
            }
            if (last) {
                inputEnded();
            }
        } else if (msg instanceof Http2HeadersFrame trailers) {
            if (trailers.isEndStream()) {
                inputEnded();
            }
        } else {
            ReferenceCountUtil.release(msg);
        }
    }

    private void inputEnded() {
        inputEnded = true;
        ChannelPromise close = lingering;
        if (close != null) {
            lingering = null;
            ctx.close(close);
        } else {
            ctx.channel().close();
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof Http2ResetFrame) {
            // The client reset the stream: as a TCP reset, nothing more arrives or can be sent.
            ReferenceCountUtil.release(evt);
            inputEnded = true;
            outputEnded = true;
            ctx.close();
            return;
        }
        super.userEventTriggered(ctx, evt);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof ByteBuf bytes) {
            ctx.write(new DefaultHttp2DataFrame(bytes, false), promise);
        } else {
            ctx.write(msg, promise);
        }
    }

    @Override
    public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
        if (lingering != null) {
            lingering.addListener(done -> promise.trySuccess());
            return;
        }
        if (outputEnded || !ctx.channel().isActive() || !open(ctx)) {
            ctx.close(promise);
            return;
        }
        outputEnded = true;
        ctx.writeAndFlush(new DefaultHttp2DataFrame(Unpooled.EMPTY_BUFFER, true));
        if (inputEnded) {
            ctx.close(promise);
            return;
        }
        lingering = promise;
        ctx.channel().config().setAutoRead(true);
        ctx.executor().schedule(() -> {
            ChannelPromise close = lingering;
            if (close != null) {
                lingering = null;
                ctx.close(close);
            }
        }, LINGER_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** Whether the stream may still carry DATA from the server. */
    private static boolean open(ChannelHandlerContext ctx) {
        Http2Stream.State state = ((Http2StreamChannel) ctx.channel()).stream().state();
        return state == Http2Stream.State.OPEN || state == Http2Stream.State.HALF_CLOSED_REMOTE;
    }
}
