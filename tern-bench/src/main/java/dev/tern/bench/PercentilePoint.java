package dev.tern.bench;

/** One point of a latency percentile curve: {@code percentile} (0-100) of requests took at most {@code latencyMs}. */
public record PercentilePoint(double percentile, double latencyMs) {
}
