package dev.tern.auth;

import java.time.Duration;
import java.util.Objects;
import java.util.function.LongSupplier;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Ticker;

/**
 * A token bucket per principal: each may send {@code burst} requests at once and {@code perSecond} a second on
 * average. The buckets live in a bounded cache; a principal idle long enough for its bucket to refill is forgotten,
 * which changes nothing, since it would come back to a full bucket anyway. Safe for concurrent use.
 */
public final class RateLimiter {
    private final double perNano;
    private final double burst;
    private final Ticker ticker;
    private final Cache<String, Bucket> buckets;

    private RateLimiter(Builder builder) {
        this.perNano = builder.perSecond / 1e9;
        this.burst = builder.burst;
        LongSupplier nanoTime = builder.nanoTime;
        this.ticker = nanoTime::getAsLong;
        long refillNanos = (long) Math.ceil(burst / perNano);
        this.buckets = Caffeine.newBuilder()
                .maximumSize(builder.maxPrincipals)
                .expireAfterAccess(Duration.ofNanos(Math.max(refillNanos, 1_000_000_000L)))
                .ticker(ticker)
                .build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Takes one request from {@code principal}'s bucket.
     *
     * @return 0 when the request may go ahead; otherwise the whole seconds (at least 1) until it could, for a 429's
     *         {@code Retry-After}
     */
    public long acquire(String principal) {
        Objects.requireNonNull(principal, "principal");
        long now = ticker.read();
        Bucket bucket = buckets.get(principal, key -> new Bucket(burst, now));
        return bucket.take(now, perNano, burst);
    }

    long bucketCount() {
        buckets.cleanUp();
        return buckets.estimatedSize();
    }

    private static final class Bucket {
        private double tokens;
        private long updated;

        Bucket(double tokens, long updated) {
            this.tokens = tokens;
            this.updated = updated;
        }

        synchronized long take(long now, double perNano, double burst) {
            if (now > updated) {
                tokens = Math.min(burst, tokens + (now - updated) * perNano);
                updated = now;
            }
            if (tokens >= 1) {
                tokens -= 1;
                return 0;
            }
            return Math.max(1, (long) Math.ceil((1 - tokens) / perNano / 1e9));
        }
    }

    /** The limits, with their defaults: 50 a second, bursts of 100, 100,000 principals remembered. */
    public static final class Builder {
        private double perSecond = 50;
        private int burst = 100;
        private long maxPrincipals = 100_000;
        private LongSupplier nanoTime = System::nanoTime;

        private Builder() {
        }

        /** The average rate each principal may keep up. */
        public Builder perSecond(double perSecond) {
            if (!(perSecond > 0) || Double.isInfinite(perSecond)) {
                throw new IllegalArgumentException("perSecond: " + perSecond + " (expected: > 0)");
            }
            this.perSecond = perSecond;
            return this;
        }

        /** How many requests a principal may send at once after being idle. */
        public Builder burst(int burst) {
            if (burst < 1) {
                throw new IllegalArgumentException("burst: " + burst + " (expected: >= 1)");
            }
            this.burst = burst;
            return this;
        }

        /** How many principals' buckets are kept; the least recently used beyond it are forgotten. */
        public Builder maxPrincipals(long maxPrincipals) {
            if (maxPrincipals < 1) {
                throw new IllegalArgumentException("maxPrincipals: " + maxPrincipals + " (expected: >= 1)");
            }
            this.maxPrincipals = maxPrincipals;
            return this;
        }

        /** The time source, in nanoseconds like {@link System#nanoTime()} (for tests). */
        public Builder nanoTime(LongSupplier nanoTime) {
            this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
            return this;
        }

        public RateLimiter build() {
            return new RateLimiter(this);
        }
    }
}
