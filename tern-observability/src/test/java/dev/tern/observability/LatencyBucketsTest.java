package dev.tern.observability;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LatencyBucketsTest {

    @Test
    void everyDurationIsReportedWithinAnEighthOfItsValueFromAMicrosecondToDays() {
        for (long micros = 1; micros < 1L << 40; micros = micros * 3 / 2 + 1) {
            int index = LatencyBuckets.index(micros);
            assertThat(index).isBetween(0, LatencyBuckets.COUNT - 1);
            assertThat(LatencyBuckets.lower(index)).as("%d us", micros).isLessThanOrEqualTo(micros);
            assertThat((double) LatencyBuckets.middle(index)).as("%d us", micros)
                    .isBetween(micros * 0.875, micros * 1.125);
        }
    }

    @Test
    void bucketsFollowEachOtherWithoutGaps() {
        for (int i = 1; i < LatencyBuckets.COUNT; i++) {
            assertThat(LatencyBuckets.index(LatencyBuckets.lower(i))).isEqualTo(i);
            assertThat(LatencyBuckets.index(LatencyBuckets.lower(i) - 1)).isEqualTo(i - 1);
        }
        assertThat(LatencyBuckets.index(Long.MAX_VALUE)).isEqualTo(LatencyBuckets.COUNT - 1);
        assertThat(LatencyBuckets.index(-5)).isZero();
    }

    @Test
    void quantilesPickTheBucketHoldingTheirRank() {
        long[] counts = new long[LatencyBuckets.COUNT];
        for (long ms = 1; ms <= 100; ms++) {
            counts[LatencyBuckets.index(ms * 1000)]++;
        }
        assertThat((double) LatencyBuckets.quantile(counts, 0.5)).isBetween(50_000 * 0.875, 50_000 * 1.125);
        assertThat((double) LatencyBuckets.quantile(counts, 0.99)).isBetween(99_000 * 0.875, 99_000 * 1.125);
        assertThat((double) LatencyBuckets.quantile(counts, 1.0)).isBetween(100_000 * 0.875, 100_000 * 1.125);
        assertThat(LatencyBuckets.quantile(new long[LatencyBuckets.COUNT], 0.5)).isEqualTo(-1);
    }
}
