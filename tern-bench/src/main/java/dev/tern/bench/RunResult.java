package dev.tern.bench;

import java.util.List;
import java.util.Map;

/**
 * The figures of one run. Latencies cover answered requests (errors included) whose intended send time fell after
 * the warm-up; requests that got no answer (transport failure, timeout, overflow) are counted in {@code errors} only.
 * Fields that do not apply are null (absent in JSON).
 *
 * @param name what distinguishes this run among others of the same result (a sweep point, a compared target)
 * @param target the target's description
 * @param workload the workload's description
 * @param mode {@code open} or {@code closed}
 * @param rate open loop: the (first) intended arrival rate; 0 in closed loop
 * @param connections closed loop: workers; open loop: the most connections (HTTP/2 streams) the client could use
 *     when the run was one of a sweep over them, else 0
 * @param seconds the measured window: from the end of the warm-up to the last measured completion
 * @param requests measured requests that completed or failed
 * @param ok of those, the successful ones
 * @param errors failures by kind ({@link Outcome.Status#key()}), only kinds that occurred
 * @param errorSamples the first failure's detail for each kind
 * @param throughput {@code requests / seconds}
 * @param percentiles the latency percentile curve
 * @param ttfb time to first byte, from the actual send (when the target reports it)
 * @param connect TCP connect times of the connections opened during the run (warm-up included)
 * @param tls TLS handshakes during the run (warm-up included)
 * @param serverSplit the server's own split, when it sends {@code Server-Timing}
 * @param process CPU and memory of the serving process, when it is local and known
 * @param phases per rate step, when the run had several
 * @param series per second, warm-up included
 */
public record RunResult(String name, String target, String workload, String mode, double rate, int connections,
        double warmupSeconds, double seconds, long requests, long ok, Map<String, Long> errors,
        Map<String, String> errorSamples, double throughput, Latency latency, List<PercentilePoint> percentiles,
        Latency ttfb, Latency connect, TlsFigures tls, ServerSplit serverSplit, ProcessFigures process,
        List<PhaseResult> phases, List<SeriesPoint> series) {

    /** All failures, of every kind. */
    public long errorCount() {
        return errors == null ? 0 : errors.values().stream().mapToLong(Long::longValue).sum();
    }

    /** A copy reporting the client's connection limit (an open-loop point of a sweep over connections). */
    public RunResult withConnections(int limit) {
        return new RunResult(name, target, workload, mode, rate, limit, warmupSeconds, seconds, requests, ok, errors,
                errorSamples, throughput, latency, percentiles, ttfb, connect, tls, serverSplit, process, phases,
                series);
    }

    /** A copy with another name. */
    public RunResult named(String newName) {
        return new RunResult(newName, target, workload, mode, rate, connections, warmupSeconds, seconds, requests, ok,
                errors, errorSamples, throughput, latency, percentiles, ttfb, connect, tls, serverSplit, process,
                phases, series);
    }
}
