package dev.tern.transport.http;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;

/**
 * Flushes a connection before it closes. An answer written on the event loop waits for the end of the loop's turn to
 * be flushed ({@link FlushBatch}), and Netty fails every write still unflushed when a channel closes: a close queued
 * meanwhile, by a shutdown or any other thread, would drop the answer. First in the pipeline, so every close passes.
 */
@ChannelHandler.Sharable
final class FlushBeforeClose extends ChannelOutboundHandlerAdapter {
    static final String NAME = "flush-before-close";
    static final FlushBeforeClose INSTANCE = new FlushBeforeClose();

    private FlushBeforeClose() {
    }

    @Override
    public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
        ctx.flush();
        ctx.close(promise);
    }
}
