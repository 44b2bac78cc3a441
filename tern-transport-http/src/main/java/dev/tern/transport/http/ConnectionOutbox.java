package dev.tern.transport.http;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
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
 * together. Likewise one timer sends the keep-alive comments of all the connection's open streams.
 */
final class ConnectionOutbox implements Runnable {
    private static final AttributeKey<ConnectionOutbox> KEY = AttributeKey.valueOf(ConnectionOutbox.class, "outbox");

    private final Channel connection;
    private final Queue<Deferred> queue = PlatformDependent.newMpscQueue();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    /** The streams given keep-alive comments; only the event loop reads or changes it, as the timer below. */
    private final Set<HttpExchange> keptAlive = new LinkedHashSet<>();
    private ScheduledFuture<?> keepAliveTimer;

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

    /**
     * Sends {@code exchange}'s open stream a keep-alive comment about every {@code every} until
     * {@link #stopKeepingAlive}: the connection's streams share one timer, of the period the first one asked for (a
     * server gives all its streams one period), so a stream's first comment may come sooner than {@code every}.
     */
    void keepAlive(HttpExchange exchange, Duration every) {
        HttpExchange.later(connection.eventLoop(), () -> {
            keptAlive.add(exchange);
            if (keepAliveTimer == null && connection.isActive()) {
                long millis = every.toMillis();
                keepAliveTimer = connection.eventLoop().scheduleAtFixedRate(this::keepAliveTick, millis, millis,
                        TimeUnit.MILLISECONDS);
            }
        });
    }

    void stopKeepingAlive(HttpExchange exchange) {
        HttpExchange.later(connection.eventLoop(), () -> {
            if (keptAlive.remove(exchange) && keptAlive.isEmpty()) {
                cancelKeepAliveTimer();
            }
        });
    }

    private void keepAliveTick() {
        if (!connection.isActive()) {
            keptAlive.clear();
            cancelKeepAliveTimer();
            return;
        }
        // A copy: a comment's write may end its stream (a client that stopped reading), which leaves the set.
        for (HttpExchange e : List.copyOf(keptAlive)) {
            e.keepAlive();
        }
    }

    private void cancelKeepAliveTimer() {
        if (keepAliveTimer != null) {
            keepAliveTimer.cancel(false);
            keepAliveTimer = null;
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
