package dev.tern.client.http;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.Timeout;

/**
 * One request on its way: the call, its future, and the response as it is read. Fields past {@link #future} are
 * touched only by the I/O thread of the connection that carries it.
 */
final class Exchange {
    private static final byte[] EMPTY = new byte[0];

    final HttpCall call;
    final CompletableFuture<HttpReply> future = new Cancellable(this);
    private final int maxResponseBytes;
    volatile Timeout timeout;
    /** The timeout instead of {@link #timeout} when it runs on an I/O thread's own queue of timed tasks. */
    volatile Future<?> loopTimeout;
    /** Undoes the exchange on its connection (resets the stream, closes the HTTP/1.1 connection) if it fails early. */
    volatile Runnable onAbort;

    long sentNanos;
    private long firstByteNanos;
    private int status;
    private HttpHeaders headers;
    private byte[] body = EMPTY;
    private int length;
    private SseParser sse;
    private String protocol;

    Exchange(HttpCall call, int maxResponseBytes) {
        this.call = call;
        this.maxResponseBytes = maxResponseBytes;
    }

    boolean done() {
        return future.isDone();
    }

    void sent(String protocol) {
        this.protocol = protocol;
        this.sentNanos = System.nanoTime();
    }

    void head(int status, HttpHeaders headers) {
        this.firstByteNanos = System.nanoTime();
        this.status = status;
        this.headers = headers;
        String type = headers.get(HttpHeaderNames.CONTENT_TYPE);
        if (type != null && type.regionMatches(true, 0, "text/event-stream", 0, 17)) {
            sse = new SseParser(call.eventListener());
        }
    }

    /** Appends response body bytes; false (and the exchange failed) when they pass the size limit. */
    boolean content(ByteBuf buf) {
        int n = buf.readableBytes();
        if (n == 0 || done()) {
            return true;
        }
        if (length + n > maxResponseBytes) {
            fail(new HttpClientException("response body exceeds " + maxResponseBytes + " bytes"));
            return false;
        }
        if (length + n > body.length) {
            body = java.util.Arrays.copyOf(body, Math.max(length + n, Math.min(maxResponseBytes, body.length * 2 + 256)));
        }
        buf.getBytes(buf.readerIndex(), body, length, n);
        length += n;
        if (sse != null) {
            try {
                sse.feed(buf);
            } catch (RuntimeException e) {
                fail(e);
                return false;
            }
        }
        return true;
    }

    void complete() {
        long now = System.nanoTime();
        cancelTimeout();
        byte[] bytes = length == body.length ? body : java.util.Arrays.copyOf(body, length);
        List<SseEvent> events = sse == null ? List.of() : sse.events();
        future.complete(new HttpReply(status, headers, bytes, events, protocol, sentNanos, firstByteNanos, now));
    }

    /** Cancelling the future aborts the exchange: HTTP/2 resets its stream, HTTP/1.1 closes its connection. */
    private static final class Cancellable extends CompletableFuture<HttpReply> {
        private final Exchange exchange;

        Cancellable(Exchange exchange) {
            this.exchange = exchange;
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            boolean cancelled = super.cancel(mayInterruptIfRunning);
            if (cancelled) {
                exchange.aborted();
            }
            return cancelled;
        }
    }

    private void cancelTimeout() {
        Timeout t = timeout;
        if (t != null) {
            t.cancel();
        }
        Future<?> f = loopTimeout;
        if (f != null) {
            f.cancel(false);
        }
    }

    private void aborted() {
        cancelTimeout();
        Runnable abort = onAbort;
        if (abort != null) {
            abort.run();
        }
    }

    /** Fails the exchange unless it already finished; runs the abort hook when it did fail it. */
    boolean fail(Throwable cause) {
        if (!future.completeExceptionally(cause)) {
            return false;
        }
        aborted();
        return true;
    }
}
