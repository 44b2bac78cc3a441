package dev.tern.redis;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A circuit breaker: after {@code threshold} failures in a row it opens for {@code openFor}, refusing calls at once
 * so that callers do not each wait out a timeout; then one call at a time may try again until one succeeds.
 * Thread-safe.
 */
final class Breaker {
    private final int threshold;
    private final long openNanos;
    private final AtomicInteger failures = new AtomicInteger();
    private final AtomicLong retryAt = new AtomicLong();

    Breaker(int threshold, Duration openFor) {
        this.threshold = threshold;
        this.openNanos = openFor.toNanos();
    }

    boolean allows() {
        if (failures.get() < threshold) {
            return true;
        }
        long at = retryAt.get();
        long now = System.nanoTime();
        // one caller wins the trial; the others are refused until it has succeeded or the next window comes
        return now - at >= 0 && retryAt.compareAndSet(at, now + openNanos);
    }

    void succeeded() {
        if (failures.get() != 0) {
            failures.set(0);
        }
    }

    void failed() {
        if (failures.incrementAndGet() == threshold) {
            retryAt.set(System.nanoTime() + openNanos);
        }
    }

    boolean open() {
        return failures.get() >= threshold;
    }
}
