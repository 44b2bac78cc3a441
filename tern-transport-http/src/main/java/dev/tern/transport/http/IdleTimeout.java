package dev.tern.transport.http;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.timeout.IdleStateEvent;

/**
 * Fires {@link IdleStateEvent#ALL_IDLE_STATE_EVENT} when a connection has had no read and no write for the timeout,
 * then again after each further timeout of silence. Netty's {@code IdleStateHandler} does the same, but reads the clock
 * after every read and adds a listener to every write; here a read or a write only sets a flag, and a check a quarter
 * of the timeout apart turns the flag into a time. The event comes between one and one and a quarter timeouts after
 * the last traffic. Event-loop confined.
 */
final class IdleTimeout extends ChannelDuplexHandler {
    private final long timeoutNanos;
    private final long checkEveryNanos;
    private final Runnable checkTask = this::check;
    private boolean active;
    private long lastSeenActive;
    private ScheduledFuture<?> check;
    private ChannelHandlerContext ctx;

    IdleTimeout(Duration timeout) {
        this.timeoutNanos = timeout.toNanos();
        this.checkEveryNanos = Math.max(1, timeoutNanos / 4);
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        if (ctx.channel().isActive() && ctx.channel().isRegistered()) {
            start();
        }
    }

    @Override
    public void channelRegistered(ChannelHandlerContext ctx) throws Exception {
        if (ctx.channel().isActive()) {
            start();
        }
        super.channelRegistered(ctx);
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        start();
        super.channelActive(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        stop();
        super.channelInactive(ctx);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        stop();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        active = true;
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        active = true;
        ctx.write(msg, promise);
    }

    private void start() {
        if (check == null) {
            lastSeenActive = ctx.executor().ticker().nanoTime();
            check = ctx.executor().schedule(checkTask, checkEveryNanos, TimeUnit.NANOSECONDS);
        }
    }

    private void stop() {
        if (check != null) {
            check.cancel(false);
            check = null;
        }
    }

    private void check() {
        if (check == null || !ctx.channel().isOpen()) {
            return;
        }
        long now = ctx.executor().ticker().nanoTime();
        if (active) {
            active = false;
            lastSeenActive = now;
        } else if (now - lastSeenActive >= timeoutNanos - checkEveryNanos / 2) {
            // Counted from here, so that the next event comes a whole timeout later, as Netty's handler does.
            lastSeenActive = now;
            ctx.fireUserEventTriggered(IdleStateEvent.ALL_IDLE_STATE_EVENT);
        }
        if (check != null) {
            check = ctx.executor().schedule(checkTask, checkEveryNanos, TimeUnit.NANOSECONDS);
        }
    }
}
