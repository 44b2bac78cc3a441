package dev.tern.server.observe;

/**
 * Where the server and its transports report requests, sessions and their own counts. {@link #off()} costs nothing:
 * it allocates nothing and its observations do nothing.
 */
public interface McpObserver {

    /** The observer that observes nothing. */
    static McpObserver off() {
        return Off.OBSERVER;
    }

    /** Whether anything is observed; a caller may skip work done only for the observer when it is not. */
    boolean enabled();

    /** A request's first byte was received at {@code nanoTime} ({@link System#nanoTime()}). */
    RequestObservation request(Transport transport, long nanoTime);

    /** A legacy session was opened at {@code nanoTime} with the protocol version it negotiated. */
    SessionObservation session(Transport transport, String protocolVersion, long nanoTime);

    /** Reads the transport's counts whenever metrics are collected, until the returned handle is closed. */
    Registration register(TransportStats stats);

    /** Stops what {@link #register} started. */
    interface Registration extends AutoCloseable {
        @Override
        void close();
    }
}
