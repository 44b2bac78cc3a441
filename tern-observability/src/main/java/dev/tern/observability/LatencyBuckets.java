package dev.tern.observability;

/**
 * Latency buckets in microseconds with four buckets per power of two, so that a percentile read from them is within
 * 12.5 % of the true value from a microsecond to days, in a fixed {@link #COUNT} of counters.
 */
final class LatencyBuckets {
    private static final int SUB_BITS = 2;
    private static final int SUB = 1 << SUB_BITS;
    /** Powers of two covered: up to 2^41 us, about 25 days; longer durations land in the last bucket. */
    private static final int MAX_EXPONENT = 41;
    static final int COUNT = SUB + (MAX_EXPONENT - SUB_BITS) * SUB;

    private LatencyBuckets() {
    }

    /** The bucket of a duration of {@code micros}. */
    static int index(long micros) {
        if (micros < SUB) {
            return (int) Math.max(0, micros);
        }
        int exponent = 63 - Long.numberOfLeadingZeros(micros);
        if (exponent >= MAX_EXPONENT) {
            return COUNT - 1;
        }
        int sub = (int) (micros >>> (exponent - SUB_BITS)) & (SUB - 1);
        return SUB + (exponent - SUB_BITS) * SUB + sub;
    }

    /** The smallest duration in the bucket. */
    static long lower(int index) {
        if (index < SUB) {
            return index;
        }
        int exponent = (index - SUB) / SUB + SUB_BITS;
        int sub = (index - SUB) % SUB;
        return (long) (SUB + sub) << (exponent - SUB_BITS);
    }

    /** The middle of the bucket: the value reported for durations that fell in it. */
    static long middle(int index) {
        if (index < SUB) {
            return index;
        }
        long lower = lower(index);
        long upper = index + 1 < COUNT ? lower(index + 1) : lower * 2;
        return (lower + upper) / 2;
    }

    /** The {@code q} quantile (0 to 1) of the counts, in microseconds, or -1 when there are none. */
    static long quantile(long[] counts, double q) {
        long total = 0;
        for (long c : counts) {
            total += c;
        }
        if (total == 0) {
            return -1;
        }
        long rank = Math.max(1, (long) Math.ceil(q * total));
        long seen = 0;
        for (int i = 0; i < counts.length; i++) {
            seen += counts[i];
            if (seen >= rank) {
                return middle(i);
            }
        }
        return middle(counts.length - 1);
    }
}
