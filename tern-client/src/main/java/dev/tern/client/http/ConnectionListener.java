package dev.tern.client.http;

/**
 * Told about the connections an {@link HttpClientEngine} opens and closes. Called on I/O threads: return quickly and
 * never block.
 */
public interface ConnectionListener {

    /** A new connection is ready for requests. */
    void connected(ConnectionInfo info);

    /** A connection attempt failed (refused, timed out, TLS handshake failed). */
    default void connectFailed(Throwable cause) {
    }

    /** A connection that was ready has closed. */
    default void closed(ConnectionInfo info) {
    }
}
