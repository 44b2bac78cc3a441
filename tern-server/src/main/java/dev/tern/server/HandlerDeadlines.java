package dev.tern.server;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The deadlines of running handlers, checked by one periodic sweep rather than a timer per call: arming a deadline
 * is a set insertion, where scheduling on an executor takes its lock and wakes its thread whenever the new deadline
 * is the earliest (at every call of an otherwise idle server). A deadline fires within one tick of passing; the tick is
 * a tenth of the timeout, between 10 ms and 1 s.
 */
final class HandlerDeadlines {
    private static final System.Logger LOG = System.getLogger("dev.tern.server");

    private final Set<Armed> armed = ConcurrentHashMap.newKeySet();
    private final long timeoutNanos;

    HandlerDeadlines(ScheduledExecutorService scheduler, Duration timeout) {
        this.timeoutNanos = timeout.toNanos();
        long tick = Math.clamp(timeoutNanos / 10, TimeUnit.MILLISECONDS.toNanos(10), TimeUnit.SECONDS.toNanos(1));
        scheduler.scheduleAtFixedRate(this::sweep, tick, tick, TimeUnit.NANOSECONDS);
    }

    /** Runs {@code onExpiry} once the timeout has passed, unless {@link Armed#disarm()} came first. */
    Armed arm(Runnable onExpiry) {
        Armed a = new Armed(System.nanoTime() + timeoutNanos, onExpiry);
        armed.add(a);
        return a;
    }

    int armedCount() {
        return armed.size();
    }

    private void sweep() {
        long now = System.nanoTime();
        for (Armed a : armed) {
            if (now - a.deadline >= 0 && armed.remove(a)) {
                try {
                    a.onExpiry.run();
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, "Expiring a handler deadline failed", e);
                }
            }
        }
    }

    final class Armed {
        private final long deadline;
        private final Runnable onExpiry;

        private Armed(long deadline, Runnable onExpiry) {
            this.deadline = deadline;
            this.onExpiry = onExpiry;
        }

        void disarm() {
            armed.remove(this);
        }
    }
}
