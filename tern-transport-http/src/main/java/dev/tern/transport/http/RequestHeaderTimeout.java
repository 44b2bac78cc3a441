package dev.tern.transport.http;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * Against slowloris on HTTP/1.1: once the first byte of a request arrives, its request line and headers must be
 * complete within the timeout, or the client gets a 408 and the connection is closed. Sits in front of the HTTP codec
 * and sees raw bytes; {@link RequestDecoder} tells it when the headers are in and when the connection is waiting for
 * the next request. An idle keep-alive connection (no byte of a new request yet) is left to the idle timeout.
 * Event-loop confined.
 */
final class RequestHeaderTimeout extends ChannelInboundHandlerAdapter {
    static final String NAME = "header-timeout";
    private static final byte[] BODY = ("{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,"
            + "\"message\":\"Request timeout: the request headers arrived too slowly\"}}").getBytes(StandardCharsets.US_ASCII);
    private static final byte[] RESPONSE = ("HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\n"
            + "content-length: " + BODY.length + "\r\nconnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
    private static final RateLimitedLog LOG = new RateLimitedLog(System.Logger.Level.INFO);
    private static final byte TLS_HANDSHAKE_RECORD = 0x16;
    private static final byte[] TLS_BODY = ("{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,"
            + "\"message\":\"Bad request: this port serves plain HTTP, not TLS\"}}").getBytes(StandardCharsets.US_ASCII);
    private static final byte[] TLS_RESPONSE = ("HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\n"
            + "content-length: " + TLS_BODY.length + "\r\nconnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII);

    private enum Phase { WAITING, HEADERS, BUSY }

    private final long timeoutNanos;
    private final Runnable expiry = this::expired;
    private Phase phase = Phase.WAITING;
    private boolean started;
    private ScheduledFuture<?> timer;
    private ChannelHandlerContext ctx;

    RequestHeaderTimeout(Duration timeout) {
        this.timeoutNanos = timeout.toNanos();
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (!started && msg instanceof ByteBuf buf && buf.isReadable()) {
            started = true;
            if (buf.getByte(buf.readerIndex()) == TLS_HANDSHAKE_RECORD) {
                // A TLS ClientHello on a plain-HTTP port: say so at once instead of waiting for a request line.
                buf.release();
                phase = Phase.BUSY;
                ctx.channel().config().setAutoRead(false);
                ctx.writeAndFlush(Unpooled.wrappedBuffer(TLS_RESPONSE, TLS_BODY)).addListener(LingeringClose.INSTANCE);
                return;
            }
        }
        if (phase != Phase.WAITING || !(msg instanceof ByteBuf buf) || !buf.isReadable()) {
            super.channelRead(ctx, msg);
            return;
        }
        phase = Phase.HEADERS;
        try {
            super.channelRead(ctx, msg);
        } finally {
            // Armed only when the headers did not come in whole with this read: most requests arrive in one segment,
            // and a timer scheduled and cancelled for each of them costs the event loop a queue insertion and removal.
            // The read took microseconds of the timeout, not worth a clock reading per request.
            // Not when the read switched the connection to HTTP/2 and took this handler out of the pipeline.
            if (phase == Phase.HEADERS && timer == null && !ctx.isRemoved()) {
                timer = ctx.executor().schedule(expiry, timeoutNanos, TimeUnit.NANOSECONDS);
            }
        }
    }

    /** The request line and headers of the current request have been decoded. */
    void headersReceived() {
        cancel();
        phase = Phase.BUSY;
    }

    /** The current exchange is over; the next byte starts a new request. */
    void awaitingNextRequest() {
        cancel();
        phase = Phase.WAITING;
    }

    private void expired() {
        timer = null;
        if (phase != Phase.HEADERS || !ctx.channel().isActive()) {
            return;
        }
        phase = Phase.BUSY;
        LOG.log("Closed a connection from {0}: request headers not complete within {1} ms",
                ctx.channel().remoteAddress(), TimeUnit.NANOSECONDS.toMillis(timeoutNanos));
        ctx.channel().config().setAutoRead(false);
        ctx.writeAndFlush(Unpooled.wrappedBuffer(RESPONSE, BODY)).addListener(LingeringClose.INSTANCE);
    }

    private void cancel() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        cancel();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        cancel();
        super.channelInactive(ctx);
    }
}
