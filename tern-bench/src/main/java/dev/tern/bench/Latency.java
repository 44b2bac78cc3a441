package dev.tern.bench;

import org.HdrHistogram.Histogram;

/**
 * A latency distribution summed up, in milliseconds (microsecond precision).
 *
 * @param count how many values
 */
public record Latency(long count, double meanMs, double p50Ms, double p90Ms, double p99Ms, double p999Ms,
        double maxMs) {

    /** Sums up a histogram of nanosecond values; null when it is empty. */
    static Latency of(Histogram nanos) {
        if (nanos == null || nanos.getTotalCount() == 0) {
            return null;
        }
        return new Latency(nanos.getTotalCount(), ms(nanos.getMean()), ms(nanos.getValueAtPercentile(50)),
                ms(nanos.getValueAtPercentile(90)), ms(nanos.getValueAtPercentile(99)),
                ms(nanos.getValueAtPercentile(99.9)), ms(nanos.getMaxValue()));
    }

    static double ms(double nanos) {
        return Math.round(nanos / 1_000d) / 1_000d;
    }
}
