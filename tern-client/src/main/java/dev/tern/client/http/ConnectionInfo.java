package dev.tern.client.http;

import java.net.SocketAddress;

/**
 * A connection an {@link HttpClientEngine} opened, reported once it is ready for requests. Durations are in
 * nanoseconds.
 *
 * @param remote the server's address
 * @param protocol {@code "http/1.1"}, {@code "h2c"} or {@code "h2"}
 * @param connectNanos from the start of the TCP connect to its completion
 * @param tlsHandshakeNanos from TCP connected to the TLS handshake's end; 0 without TLS
 * @param tlsResumed whether the TLS session was resumed from the session cache (no certificate was exchanged)
 * @param tlsVersion such as {@code "TLSv1.3"}, or {@code null} without TLS
 * @param cipherSuite the negotiated cipher suite, or {@code null} without TLS
 */
public record ConnectionInfo(SocketAddress remote, String protocol, long connectNanos, long tlsHandshakeNanos,
        boolean tlsResumed, String tlsVersion, String cipherSuite) {

    public boolean tls() {
        return tlsVersion != null;
    }
}
