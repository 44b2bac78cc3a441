package dev.tern.bench;

/**
 * TLS handshakes the target reported during a run.
 *
 * @param resumptionRate resumed / (full + resumed), 0..1
 */
public record TlsFigures(long full, long resumed, double resumptionRate, Latency fullHandshake,
        Latency resumedHandshake) {
}
