package dev.tern.bench;

/**
 * TLS handshakes the target reported during a run.
 *
 * @param resumptionRate resumed / (full + resumed), 0..1
 * @param failed handshakes of new connections that failed
 * @param failureSample the first failure's detail, or null
 */
public record TlsFigures(long full, long resumed, double resumptionRate, Latency fullHandshake,
        Latency resumedHandshake, long failed, String failureSample) {
}
