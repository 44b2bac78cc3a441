package dev.tern.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

class RateLimiterTest {
    private final AtomicLong now = new AtomicLong(1_000_000_000L);

    @Test
    void aPrincipalMaySpendItsBurstThenWaitsForTheBucketToRefill() {
        RateLimiter limiter = RateLimiter.builder().perSecond(2).burst(3).nanoTime(now::get).build();

        assertThat(limiter.acquire("alice")).isZero();
        assertThat(limiter.acquire("alice")).isZero();
        assertThat(limiter.acquire("alice")).isZero();
        assertThat(limiter.acquire("alice")).as("Retry-After: one token takes half a second").isEqualTo(1);
        assertThat(limiter.acquire("bob")).as("buckets are per principal").isZero();

        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(500));
        assertThat(limiter.acquire("alice")).isZero();
        assertThat(limiter.acquire("alice")).isEqualTo(1);

        now.addAndGet(TimeUnit.SECONDS.toNanos(60));
        for (int i = 0; i < 3; i++) {
            assertThat(limiter.acquire("alice")).as("refilled to the burst, no further").isZero();
        }
        assertThat(limiter.acquire("alice")).isEqualTo(1);
    }

    @Test
    void retryAfterIsTheWholeSecondsUntilTheNextToken() {
        RateLimiter limiter = RateLimiter.builder().perSecond(0.1).burst(1).nanoTime(now::get).build();
        assertThat(limiter.acquire("alice")).isZero();
        assertThat(limiter.acquire("alice")).isEqualTo(10);
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(2500));
        assertThat(limiter.acquire("alice")).isEqualTo(8);
    }

    @Test
    void theNumberOfBucketsIsBounded() {
        RateLimiter limiter = RateLimiter.builder().perSecond(1).burst(1).maxPrincipals(100).nanoTime(now::get)
                .build();
        for (int i = 0; i < 10_000; i++) {
            assertThat(limiter.acquire("p" + i)).isZero();
        }
        assertThat(limiter.bucketCount()).isLessThanOrEqualTo(100);
    }

    @Test
    void limitsOutsideTheirRangeAreRefused() {
        assertThatThrownBy(() -> RateLimiter.builder().perSecond(0)).hasMessage("perSecond: 0.0 (expected: > 0)");
        assertThatThrownBy(() -> RateLimiter.builder().burst(0)).hasMessage("burst: 0 (expected: >= 1)");
        assertThatThrownBy(() -> RateLimiter.builder().maxPrincipals(0))
                .hasMessage("maxPrincipals: 0 (expected: >= 1)");
    }
}
