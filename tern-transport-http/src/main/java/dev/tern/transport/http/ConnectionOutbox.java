package dev.tern.transport.http;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.atomic.AtomicBoolean;

import io.netty.channel.Channel;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.util.Attribute;
import io.netty.util.AttributeKey;
import io.netty.util.internal.PlatformDependent;

/**
 * The writes made off a connection's event loop, for any of its HTTP/2 streams (or its HTTP/1.1 exchange), written
 * on the loop by one task and flushed once. A change fanned out to many listens on one connection then costs the loop
 * one task and the connection one socket write, rather than one of each per stream, and the client reads the events
 * together.
 */
final class ConnectionOutbox implements Runnable {
    private static final AttributeKey<ConnectionOutbox> KEY = AttributeKey.valueOf(ConnectionOutbox.class, "outbox");

    private final Channel connection;
    private final Queue<Deferred> queue = PlatformDependent.newMpscQueue();
    private final AtomicBoolean scheduled = new AtomicBoolean();

    private ConnectionOutbox(Channel connection) {
        this.connection = connection;
    }

    /** One write waiting for the loop: the exchange it belongs to, the message and the promise its writer holds. */
    private record Deferred(HttpExchange exchange, Object message, ChannelPromise promise) {
    }

    /** The outbox of the connection {@code channel} belongs to (an HTTP/2 stream's parent, or the channel itself). */
    static ConnectionOutbox of(Channel channel) {
        Channel connection = channel instanceof Http2StreamChannel ? channel.parent() : channel;
        Attribute<ConnectionOutbox> attribute = connection.attr(KEY);
        ConnectionOutbox outbox = attribute.get();
        if (outbox == null) {
            outbox = new ConnectionOutbox(connection);
            ConnectionOutbox earlier = attribute.setIfAbsent(outbox);
            if (earlier != null) {
                outbox = earlier;
            }
        }
        return outbox;
    }

    /**
     * Queues {@code message} for {@code exchange}, to be written on the loop in the order queued, then flushed;
     * {@code promise} completes with the write.
     */
    void add(HttpExchange exchange, Object message, ChannelPromise promise) {
        queue.add(new Deferred(exchange, message, promise));
        if (scheduled.compareAndSet(false, true)) {
            HttpExchange.later(connection.eventLoop(), this);
        }
    }

    /** Writes everything queued, then flushes the connection once. */
    @Override
    public void run() {
        List<HttpExchange> written = new ArrayList<>();
        try {
            do {
                Deferred d;
                while ((d = queue.poll()) != null) {
                    d.exchange().writeDeferred(d.message(), d.promise());
                    if (written.isEmpty() || written.get(written.size() - 1) != d.exchange()) {
                        written.add(d.exchange());
                    }
                }
                scheduled.set(false);
                // A write queued between the last poll and the reset found the task still scheduled: take it now.
            } while (!queue.isEmpty() && scheduled.compareAndSet(false, true));
        } finally {
            if (!written.isEmpty()) {
                connection.flush();
                for (HttpExchange e : written) {
                    e.flushedByOutbox();
                }
            }
        }
    }
}
