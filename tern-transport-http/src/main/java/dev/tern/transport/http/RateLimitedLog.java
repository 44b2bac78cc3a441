package dev.tern.transport.http;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Logs a kind of event at most once per interval, with the number of occurrences left out since, so a flood of bad
 * input cannot flood the log. Thread-safe.
 */
final class RateLimitedLog {
    private static final System.Logger LOG = System.getLogger("dev.tern.transport.http");
    private static final long INTERVAL_NANOS = 10_000_000_000L;

    private final System.Logger.Level level;
    private final AtomicLong next = new AtomicLong(System.nanoTime());
    private final AtomicLong suppressed = new AtomicLong();

    RateLimitedLog() {
        this(System.Logger.Level.WARNING);
    }

    RateLimitedLog(System.Logger.Level level) {
        this.level = level;
    }

    void log(String format, Object... args) {
        long now = System.nanoTime();
        long due = next.get();
        if (now - due < 0 || !next.compareAndSet(due, now + INTERVAL_NANOS)) {
            suppressed.incrementAndGet();
            return;
        }
        if (!LOG.isLoggable(level)) {
            return;
        }
        long skipped = suppressed.getAndSet(0);
        String message = java.text.MessageFormat.format(format, args);
        LOG.log(level, skipped == 0 ? message : message + " (" + skipped + " more like it not logged)");
    }
}
