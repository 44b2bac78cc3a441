package dev.tern.bench;

/**
 * What the serving process used while it was measured, from {@code /proc}.
 *
 * @param cpuSeconds user + system CPU time over the measured window
 * @param cpuPerCallMicros {@code cpuSeconds} divided by the measured requests that completed
 * @param rssMaxBytes the largest resident set size sampled (once a second)
 * @param rssEndBytes the resident set size at the end
 */
public record ProcessFigures(long pid, double cpuSeconds, double cpuPerCallMicros, long rssMaxBytes,
        long rssEndBytes) {
}
