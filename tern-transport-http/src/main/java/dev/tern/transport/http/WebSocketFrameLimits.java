package dev.tern.transport.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.websocketx.ContinuationWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PingWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PongWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketCloseStatus;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.util.ReferenceCountUtil;

/**
 * Closes a WebSocket connection with 1008 (policy) when its client floods it with frames that cost the server work
 * but carry no message: more pings and pongs per window than allowed, or a message split into more fragments than
 * allowed (tiny or empty continuation frames). Sits before the aggregator, which sees only whole messages' sizes.
 */
final class WebSocketFrameLimits extends ChannelInboundHandlerAdapter {
    private static final RateLimitedLog FLOODS = new RateLimitedLog(System.Logger.Level.INFO);

    private final int maxControlFrames;
    private final long windowNanos;
    private final int maxFragments;
    private long windowStart = System.nanoTime();
    private int controlFrames;
    /** Frames of the message being received so far; 0 between messages. */
    private int fragments;
    private boolean closed;

    WebSocketFrameLimits(HttpOptions.WebSocket options) {
        this.maxControlFrames = options.maxControlFrames();
        this.windowNanos = options.controlFrameWindow().toNanos();
        this.maxFragments = options.maxFragments();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (closed) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (msg instanceof PingWebSocketFrame || msg instanceof PongWebSocketFrame) {
            long now = System.nanoTime();
            if (now - windowStart > windowNanos) {
                windowStart = now;
                controlFrames = 0;
            }
            if (++controlFrames > maxControlFrames) {
                refuse(ctx, msg, "more than " + maxControlFrames + " pings and pongs within "
                        + windowNanos / 1_000_000 + " ms");
                return;
            }
        } else if (msg instanceof WebSocketFrame frame) {
            boolean starts = !(frame instanceof ContinuationWebSocketFrame);
            fragments = starts ? 1 : fragments + 1;
            if (fragments > maxFragments) {
                refuse(ctx, msg, "a message split into more than " + maxFragments + " frames");
                return;
            }
            if (frame.isFinalFragment()) {
                fragments = 0;
            }
        }
        ctx.fireChannelRead(msg);
    }

    private void refuse(ChannelHandlerContext ctx, Object msg, String why) {
        ReferenceCountUtil.release(msg);
        closed = true;
        FLOODS.log("Closing the WebSocket connection from {0}: {1}", ctx.channel().remoteAddress(), why);
        WebSocketConnection.closeWith(ctx, WebSocketCloseStatus.POLICY_VIOLATION, "Too many frames: " + why);
    }
}
