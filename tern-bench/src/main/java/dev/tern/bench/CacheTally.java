package dev.tern.bench;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts the results a server served from its result cache, as their 2026-07-28 {@code ttlMs} tells: a fresh result
 * carries the tool's whole time to live, a cached one only what it has left, which Tern rounds down, so less. The
 * whole ttl is the largest {@code ttlMs} seen. Thread-safe.
 */
public final class CacheTally {
    private static final byte[] KEY = "\"ttlMs\":".getBytes(StandardCharsets.US_ASCII);

    private final LongAdder results = new LongAdder();
    private final LongAdder withTtl = new LongAdder();
    private final LongAdder belowFull = new LongAdder();
    private final LongAccumulator fullTtl = new LongAccumulator(Math::max, -1);

    /** Looks at one JSON reply body. */
    public void observe(byte[] body) {
        results.increment();
        long ttl = ttlMs(body);
        if (ttl < 0) {
            return;
        }
        withTtl.increment();
        fullTtl.accumulate(ttl);
        if (ttl < fullTtl.get()) {
            belowFull.increment();
        }
    }

    public void reset() {
        results.reset();
        withTtl.reset();
        belowFull.reset();
    }

    /** A line for the log: the share of results served from the cache, or null when none carried a ttl. */
    public String line() {
        long all = results.sum();
        long ttl = withTtl.sum();
        if (all == 0) {
            return null;
        }
        if (ttl == 0) {
            return String.format(Locale.ROOT, "server cache: no result of %,d carried ttlMs (nothing cached)", all);
        }
        long hits = belowFull.sum();
        return String.format(Locale.ROOT, "server cache: hit rate %.1f%% (%,d of %,d results with ttlMs below the whole "
                + "%,d ms)", 100.0 * hits / ttl, hits, ttl, fullTtl.get());
    }

    /** The value of the last {@code "ttlMs":} member in {@code body}, or -1. */
    static long ttlMs(byte[] body) {
        outer:
        for (int i = body.length - KEY.length; i >= 0; i--) {
            for (int j = 0; j < KEY.length; j++) {
                if (body[i + j] != KEY[j]) {
                    continue outer;
                }
            }
            long value = 0;
            int k = i + KEY.length;
            if (k >= body.length || body[k] < '0' || body[k] > '9') {
                return -1;
            }
            while (k < body.length && body[k] >= '0' && body[k] <= '9') {
                value = value * 10 + (body[k++] - '0');
            }
            return value;
        }
        return -1;
    }
}
