package dev.tern.transport.http;

import java.time.Duration;
import java.util.Set;

import dev.tern.protocol.CodecLimits;

/** The settings of an HTTP transport, fixed when it starts. */
record HttpOptions(
        String host,
        int port,
        String path,
        Set<String> allowedHosts,
        Set<String> allowedOrigins,
        CodecLimits limits,
        int maxInitialLineLength,
        int maxHeaderSize,
        Duration idleTimeout,
        Duration sseKeepAlive,
        Duration sessionIdleTimeout,
        int maxSessions,
        int maxInFlight,
        int maxConcurrentStreams,
        Duration shutdownTimeout,
        TlsOptions tls) {

    /** TLS with ALPN (h2, http/1.1): a certificate chain and key in PEM, or a self-signed development certificate. */
    record TlsOptions(java.nio.file.Path certificateChain, java.nio.file.Path privateKey) {
        boolean selfSigned() {
            return certificateChain == null;
        }
    }
}
