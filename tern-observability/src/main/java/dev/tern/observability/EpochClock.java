package dev.tern.observability;

import java.time.Instant;

/**
 * Turns {@link System#nanoTime()} readings, which the server takes anyway, into the epoch nanoseconds spans and log
 * lines need, without reading the wall clock per request. The anchor is renewed each minute so that the two clocks
 * cannot drift apart for long.
 */
final class EpochClock {
    private static final long RENEW_NANOS = 60_000_000_000L;

    private record Anchor(long nanoTime, long epochNanos) {
    }

    private volatile Anchor anchor = now();

    long epochNanos(long nanoTime) {
        Anchor a = anchor;
        if (nanoTime - a.nanoTime > RENEW_NANOS) {
            a = now();
            anchor = a;
        }
        return a.epochNanos + (nanoTime - a.nanoTime);
    }

    private static Anchor now() {
        Instant now = Instant.now();
        return new Anchor(System.nanoTime(), now.getEpochSecond() * 1_000_000_000L + now.getNano());
    }
}
