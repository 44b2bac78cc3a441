package dev.tern.bench;

import java.util.List;

/**
 * What one {@code tern bench} invocation measured: one run, the points of a sweep, or the targets of a comparison.
 *
 * @param label names the whole result in merged reports (a server's name, a configuration)
 * @param createdAt ISO-8601 instant
 * @param environment the machine the figures come from
 * @param coldStart the cold start, when one was measured; null otherwise
 * @param runs the runs, in order
 */
public record BenchResult(String label, String createdAt, Environment environment, ColdStart coldStart,
        List<RunResult> runs) {

    /** The machine a result was measured on. */
    public record Environment(String java, String os, int cpus) {
        public static Environment current() {
            return new Environment(System.getProperty("java.vendor") + " " + Runtime.version(),
                    System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                            + System.getProperty("os.arch"),
                    Runtime.getRuntime().availableProcessors());
        }
    }

    public static BenchResult of(String label, ColdStart coldStart, List<RunResult> runs) {
        return new BenchResult(label, java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS)
                .toString(), Environment.current(), coldStart, List.copyOf(runs));
    }
}
