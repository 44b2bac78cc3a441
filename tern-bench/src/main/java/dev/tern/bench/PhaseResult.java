package dev.tern.bench;

/**
 * The figures of one rate step of an open-loop run with several (a burst).
 *
 * @param rate the step's intended arrival rate
 * @param seconds the step's length
 * @param requests requests due in the step that completed (answered or failed)
 * @param throughput those requests per second of the step
 * @param latency the answered ones' latency, timed from their intended send time; null when none
 */
public record PhaseResult(double rate, double seconds, long requests, long errors, double throughput,
        Latency latency) {
}
