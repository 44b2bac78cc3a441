package dev.tern.bench;

/** Where a target reports what it learns about its connections. Called from any thread. */
public interface ConnectionObserver {
    /** A connection was established; {@code connectNanos} is the TCP connect time. */
    void connected(long connectNanos);

    /** A TLS handshake finished in {@code handshakeNanos}; {@code resumed} when an earlier session was resumed. */
    void tlsHandshake(long handshakeNanos, boolean resumed);

    /** A new connection's TLS handshake failed (the requests waiting for it go to another connection or fail). */
    default void tlsHandshakeFailed(String detail) {
    }

    ConnectionObserver NONE = new ConnectionObserver() {
        @Override
        public void connected(long connectNanos) {
        }

        @Override
        public void tlsHandshake(long handshakeNanos, boolean resumed) {
        }
    };
}
