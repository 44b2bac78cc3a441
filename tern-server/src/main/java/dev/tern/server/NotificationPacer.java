package dev.tern.server;

import java.util.concurrent.TimeUnit;

import dev.tern.protocol.Json;
import dev.tern.protocol.JsonRpcNotification;
import dev.tern.protocol.model.LoggingLevel;

import tools.jackson.databind.node.ObjectNode;

/**
 * Keeps one request's progress and log notifications within a rate a slow client can take
 * ({@link ServerConfig#progressPerSecond()}, {@link ServerConfig#logsPerSecond()}, each with a burst of as many).
 * Progress past the rate is coalesced: only the latest waits, and goes out when the rate allows or just before the
 * response. Log messages past the rate are dropped and counted; the count goes out as one warning when the rate allows
 * or just before the response. Guarded by the exchange's lock.
 */
final class NotificationPacer {
    static final String LOGGER = "tern";

    private final Exchange exchange;
    private final Bucket progress;
    private final Bucket logs;
    private JsonRpcNotification pendingProgress;
    private boolean flushScheduled;
    private long droppedLogs;

    NotificationPacer(Exchange exchange, ServerConfig config) {
        this.exchange = exchange;
        this.progress = new Bucket(config.progressPerSecond());
        this.logs = new Bucket(config.logsPerSecond());
    }

    /** Sends or holds a progress notification; called with the exchange's lock held. */
    void progress(JsonRpcNotification notification) {
        long now = System.nanoTime();
        if (pendingProgress == null && progress.take(now)) {
            exchange.sendNow(notification);
            return;
        }
        pendingProgress = notification;
        if (!flushScheduled) {
            flushScheduled = true;
            exchange.server.scheduler().schedule(this::flush, progress.nanosToNext(now), TimeUnit.NANOSECONDS);
        }
    }

    /** Sends or drops a log message; called with the exchange's lock held. */
    void log(JsonRpcNotification notification) {
        if (!logs.take(System.nanoTime())) {
            droppedLogs++;
            return;
        }
        sendDroppedCount();
        exchange.sendNow(notification);
    }

    /** Sends what is held, whatever the rate: the response follows. Called with the exchange's lock held. */
    void drain() {
        if (pendingProgress != null) {
            exchange.sendNow(pendingProgress);
            pendingProgress = null;
        }
        sendDroppedCount();
    }

    private void flush() {
        synchronized (exchange) {
            flushScheduled = false;
            if (pendingProgress == null || exchange.isFinished()) {
                return;
            }
            JsonRpcNotification held = pendingProgress;
            pendingProgress = null;
            progress(held);
        }
    }

    private void sendDroppedCount() {
        if (droppedLogs == 0) {
            return;
        }
        ObjectNode p = Json.object();
        p.put("level", LoggingLevel.WARNING.wire());
        p.put("logger", LOGGER);
        p.put("data", droppedLogs + " log messages of this request were dropped: more than "
                + logs.perSecond + " a second");
        droppedLogs = 0;
        exchange.sendNow(new JsonRpcNotification("notifications/message", p));
    }

    /** A token bucket holding at most {@code perSecond} tokens, refilled at {@code perSecond}. */
    private static final class Bucket {
        final int perSecond;
        private final long nanosPerToken;
        private double tokens;
        private long refilled;

        Bucket(int perSecond) {
            this.perSecond = perSecond;
            this.nanosPerToken = TimeUnit.SECONDS.toNanos(1) / perSecond;
            this.tokens = perSecond;
            this.refilled = System.nanoTime();
        }

        boolean take(long now) {
            tokens = Math.min(perSecond, tokens + (double) (now - refilled) / nanosPerToken);
            refilled = now;
            if (tokens < 1) {
                return false;
            }
            tokens--;
            return true;
        }

        long nanosToNext(long now) {
            double missing = 1 - Math.min(perSecond, tokens + (double) (now - refilled) / nanosPerToken);
            return Math.max(0, (long) Math.ceil(missing * nanosPerToken));
        }
    }
}
