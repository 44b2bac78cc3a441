package dev.tern.transport.http;

import java.util.concurrent.TimeUnit;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.DuplexChannel;
import io.netty.util.ReferenceCountUtil;

/**
 * Closes an HTTP/1.1 connection after a final response without losing that response. Closing a socket that still
 * has unread input (the rest of a refused 6 MB body, say) makes the kernel send a reset, and a reset can destroy the
 * response before the client reads it. So the output is shut down first (the client sees the response, then end of
 * stream), whatever the client still sends is read and thrown away, and the connection is closed when the client
 * closes its side or after a short, fixed linger.
 */
final class LingeringClose implements ChannelFutureListener {
    static final LingeringClose INSTANCE = new LingeringClose();
    private static final long LINGER_MILLIS = 2_000;

    private LingeringClose() {
    }

    @Override
    public void operationComplete(ChannelFuture written) {
        close(written.channel());
    }

    static void close(Channel channel) {
        if (!(channel instanceof DuplexChannel duplex) || !channel.isActive() || duplex.isOutputShutdown()) {
            channel.close();
            return;
        }
        channel.pipeline().addFirst("linger-discard", new Discard());
        duplex.shutdownOutput().addListener(done -> {
            if (!done.isSuccess()) {
                channel.close();
                return;
            }
            channel.config().setAutoRead(true);
            channel.read();
            channel.eventLoop().schedule(() -> {
                channel.close();
            }, LINGER_MILLIS, TimeUnit.MILLISECONDS);
        });
    }

    /** Throws away whatever arrives while lingering; closes once the client has closed its side. */
    private static final class Discard extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ReferenceCountUtil.release(msg);
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
            if (evt instanceof io.netty.channel.socket.ChannelInputShutdownEvent) {
                ctx.close();
                return;
            }
            super.userEventTriggered(ctx, evt);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }
}
