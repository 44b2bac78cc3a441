package dev.tern.server.observe;

/**
 * Counts a transport keeps itself and the metrics read when they are collected, so that counting costs the transport
 * only its own increments. A count the transport does not keep is negative and not reported.
 */
public interface TransportStats {

    /** Requests received and not yet answered. */
    default long requestsInFlight() {
        return -1;
    }

    /** Legacy sessions open. */
    default long sessions() {
        return -1;
    }

    /** Open listens: GET streams of the 2025 era and {@code subscriptions/listen} of the 2026 era. */
    default long listens() {
        return -1;
    }

    /** Open SSE streams of any kind, 2024-11-05 SSE connections included. */
    default long sseStreams() {
        return -1;
    }

    /** Requests refused with 503 because the server was full, since start. */
    default long shed() {
        return -1;
    }

    /** Requests refused with 429 because one client held its share, since start. */
    default long refusedByShare() {
        return -1;
    }

    /** Events the event store holds for resumption. */
    default long eventStoreSize() {
        return -1;
    }

    /** TLS handshakes completed, in full or resumed, since start. */
    default long tlsHandshakes() {
        return -1;
    }

    /** TLS handshakes that failed (refused, timed out, broken off), since start. */
    default long tlsHandshakeFailures() {
        return -1;
    }

    /** TLS handshakes completed in full, since start. */
    default long tlsHandshakesFull() {
        return -1;
    }

    /** TLS handshakes that resumed an earlier session, since start. */
    default long tlsHandshakesResumed() {
        return -1;
    }
}
