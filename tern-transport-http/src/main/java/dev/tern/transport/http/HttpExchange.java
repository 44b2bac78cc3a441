package dev.tern.transport.http;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;

/**
 * The response to one HTTP request: a single JSON body, or an SSE stream that starts when the first message that
 * is not the final response arrives. Thread-safe: handlers on any thread write through it, in the order they call.
 */
final class HttpExchange {
    private static final byte[] DATA = "data: ".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] ID = "id: ".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] END_EVENT = "\n\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] KEEP_ALIVE = ":\n\n".getBytes(StandardCharsets.US_ASCII);

    enum Mode { PENDING, SSE, DONE }

    private final ChannelHandlerContext ctx;
    private final boolean keepAlive;
    private final java.util.List<Runnable> onDone = new java.util.ArrayList<>(2);
    private final HttpHeaders extraHeaders = new DefaultHttpHeaders();
    private Mode mode = Mode.PENDING;
    private ScheduledFuture<?> keepAliveTask;
    private Runnable onClientGone;

    HttpExchange(ChannelHandlerContext ctx, boolean keepAlive, Runnable onDone) {
        this.ctx = ctx;
        this.keepAlive = keepAlive;
        this.onDone.add(onDone);
    }

    /** Runs {@code action} once when the exchange is done, whichever way it ends. */
    synchronized void onDone(Runnable action) {
        if (mode == Mode.DONE) {
            action.run();
        } else {
            onDone.add(action);
        }
    }

    private void done() {
        for (Runnable r : onDone) {
            try {
                r.run();
            } catch (RuntimeException ignored) {
                // one failing callback must not keep the others from running
            }
        }
        onDone.clear();
    }

    /** A header every response of this exchange carries (e.g. {@code Mcp-Session-Id}). */
    synchronized HttpExchange header(CharSequence name, Object value) {
        extraHeaders.set(name, value);
        return this;
    }

    synchronized boolean isOpen() {
        return mode != Mode.DONE && ctx.channel().isActive();
    }

    synchronized boolean streaming() {
        return mode == Mode.SSE;
    }

    /** What to do if the client goes away before the exchange is done. */
    synchronized void onClientGone(Runnable action) {
        this.onClientGone = action;
    }

    /** Answers with one JSON body and ends the exchange; if a stream is open, the body is its last event. */
    synchronized void json(HttpResponseStatus status, byte[] body) {
        if (mode == Mode.SSE) {
            writeEvent(body, null);
            end();
            return;
        }
        if (mode == Mode.DONE) {
            return;
        }
        DefaultFullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                Unpooled.wrappedBuffer(body));
        HttpHeaders h = response.headers();
        h.set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
        h.setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
        h.add(extraHeaders);
        finish(response);
    }

    /** Answers with no body and ends the exchange. */
    synchronized void empty(HttpResponseStatus status) {
        if (mode != Mode.PENDING) {
            return;
        }
        DefaultFullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.EMPTY_BUFFER);
        response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, 0);
        response.headers().add(extraHeaders);
        finish(response);
    }

    /** Opens the SSE stream now (for GET streams and subscriptions), with an optional priming event. */
    synchronized void startStream(String primingEventId, Duration retry, Duration keepAliveEvery) {
        if (mode != Mode.PENDING) {
            return;
        }
        DefaultHttpResponse response = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        HttpHeaders h = response.headers();
        h.set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.TEXT_EVENT_STREAM);
        h.set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_CACHE);
        h.set("x-accel-buffering", "no");
        h.set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
        h.add(extraHeaders);
        ctx.write(response);
        mode = Mode.SSE;
        if (primingEventId != null) {
            StringBuilder priming = new StringBuilder();
            priming.append("id: ").append(primingEventId).append('\n');
            if (retry != null) {
                priming.append("retry: ").append(retry.toMillis()).append('\n');
            }
            priming.append("data: \n\n");
            ctx.write(new DefaultHttpContent(Unpooled.copiedBuffer(priming, StandardCharsets.UTF_8)));
        }
        ctx.flush();
        if (keepAliveEvery != null) {
            keepAliveTask = ctx.executor().scheduleAtFixedRate(this::keepAlive, keepAliveEvery.toMillis(),
                    keepAliveEvery.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /** Sends one message as an SSE event (opening the stream if needed); ends the stream when {@code last}. */
    synchronized void event(byte[] json, String eventId, boolean last) {
        if (mode == Mode.DONE) {
            return;
        }
        if (mode == Mode.PENDING) {
            startStream(null, null, null);
        }
        writeEvent(json, eventId);
        if (last) {
            end();
        }
    }

    /** Ends an open stream, optionally telling the client when to reconnect. */
    synchronized void end(Duration retry) {
        if (mode != Mode.SSE) {
            return;
        }
        if (retry != null) {
            ctx.write(new DefaultHttpContent(Unpooled.copiedBuffer("retry: " + retry.toMillis() + "\n\n",
                    StandardCharsets.US_ASCII)));
        }
        end();
    }

    synchronized void clientGone() {
        if (mode == Mode.DONE) {
            return;
        }
        mode = Mode.DONE;
        cancelKeepAlive();
        Runnable action = onClientGone;
        done();
        if (action != null) {
            action.run();
        }
    }

    private void writeEvent(byte[] json, String eventId) {
        int size = json.length + DATA.length + END_EVENT.length + (eventId == null ? 0 : ID.length + eventId.length() + 1);
        ByteBuf buf = ctx.alloc().buffer(size);
        if (eventId != null) {
            buf.writeBytes(ID).writeCharSequence(eventId, StandardCharsets.US_ASCII);
            buf.writeByte('\n');
        }
        buf.writeBytes(DATA).writeBytes(json).writeBytes(END_EVENT);
        ctx.writeAndFlush(new DefaultHttpContent(buf));
    }

    private void keepAlive() {
        synchronized (this) {
            if (mode == Mode.SSE && ctx.channel().isActive()) {
                ctx.writeAndFlush(new DefaultHttpContent(Unpooled.wrappedBuffer(KEEP_ALIVE)));
            }
        }
    }

    private void end() {
        mode = Mode.DONE;
        cancelKeepAlive();
        var future = ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
        if (!keepAlive) {
            future.addListener(ChannelFutureListener.CLOSE);
        }
        done();
    }

    private void finish(DefaultFullHttpResponse response) {
        mode = Mode.DONE;
        if (!keepAlive) {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
        } else {
            ctx.writeAndFlush(response);
        }
        done();
    }

    private void cancelKeepAlive() {
        if (keepAliveTask != null) {
            keepAliveTask.cancel(false);
            keepAliveTask = null;
        }
    }
}
