package dev.tern.bench;

/**
 * One second of a run, by completion time.
 *
 * @param second seconds since the run started (warm-up included) at the end of this interval
 * @param warmup whether the interval ended during warm-up
 * @param requests replies and failures that completed in the interval
 * @param errors of those, how many were not ok
 * @param cpuPercent the sampled process's CPU use in the interval (100 = one core), or null
 * @param rssBytes the sampled process's resident set size at the end of the interval, or null
 */
public record SeriesPoint(double second, boolean warmup, long requests, long errors, double p50Ms, double p99Ms,
        double maxMs, Double cpuPercent, Long rssBytes) {
}
