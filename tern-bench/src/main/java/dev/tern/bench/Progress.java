package dev.tern.bench;

/**
 * A run's state, reported once a second while it runs.
 *
 * @param elapsedSeconds since the run started, warm-up included
 * @param totalSeconds the run's planned length, warm-up included
 * @param warmup whether the run is still warming up
 * @param completed requests completed so far, warm-up included
 * @param lastSecondRate completions in the last second
 * @param lastSecondP99Ms the 99th percentile of the last second's latencies
 * @param errors failures so far, warm-up included
 * @param inFlight requests outstanding now
 */
public record Progress(double elapsedSeconds, double totalSeconds, boolean warmup, long completed,
        double lastSecondRate, double lastSecondP99Ms, long errors, long inFlight) {

    /** One line for a terminal, e.g. {@code   12s/35s  4,998 req/s  p99 1.23 ms  0 errors  3 in flight}. */
    public String line() {
        return String.format(java.util.Locale.ROOT, "%5.0fs/%.0fs%s %9s req/s  p99 %8s ms  %,d errors  %,d in flight",
                elapsedSeconds, totalSeconds, warmup ? " (warm-up)" : "", Figures.number(Math.round(lastSecondRate)),
                Figures.ms(lastSecondP99Ms), errors, inFlight);
    }
}
