package dev.tern.transport.http;

import java.time.Duration;
import java.util.List;
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
        int maxSessionsPerClient,
        int maxInFlight,
        Duration shutdownTimeout,
        TlsOptions tls,
        ConnectionLimits connections,
        Http2Limits http2,
        dev.tern.server.EventStore eventStore,
        LegacySsePaths legacySse,
        PrincipalResolver principals,
        boolean serverTiming,
        boolean sseReplies,
        IoTransport ioTransport,
        HttpRoutes routes) {

    /** Where the deprecated 2024-11-05 HTTP+SSE transport is served ({@code null} in {@link HttpOptions}: not at all). */
    record LegacySsePaths(String ssePath, String messagesPath) {
    }

    /**
     * TLS with ALPN (h2, http/1.1): a certificate chain and key in PEM, or a self-signed development certificate.
     *
     * @param protocols the TLS versions offered, newest first (TLS 1.3 and 1.2 by default; never older ones)
     * @param handshakeTimeout how long a client may take to complete the handshake before the connection is closed
     */
    record TlsOptions(java.nio.file.Path certificateChain, java.nio.file.Path privateKey, List<String> protocols,
            Duration handshakeTimeout) {
        boolean selfSigned() {
            return certificateChain == null;
        }
    }

    /**
     * Bounds on connections and on how slowly a peer may send or receive.
     *
     * @param maxConnections open connections in total; a connection beyond it is closed as soon as it is accepted
     * @param maxConnectionsPerAddress open connections from one client IP address
     * @param requestHeaderTimeout from the first byte of a request to the end of its headers (HTTP/1.1 request line
     *        and headers, HTTP/2 HEADERS and CONTINUATION frames); then 408 and close
     * @param requestBodyTimeout from the end of the headers to the end of the body; then 408
     * @param writeTimeout how long a response may make no progress towards a client that does not read; then the
     *        stream is dropped (HTTP/2 RST_STREAM) or the connection closed (HTTP/1.1)
     * @param maxBufferedResponseBytes response bytes queued for one slow client; beyond it the stream is dropped
     */
    record ConnectionLimits(int maxConnections, int maxConnectionsPerAddress, Duration requestHeaderTimeout,
            Duration requestBodyTimeout, Duration writeTimeout, long maxBufferedResponseBytes) {
    }

    /**
     * HTTP/2 flood defences.
     *
     * @param maxConcurrentStreams SETTINGS_MAX_CONCURRENT_STREAMS; streams beyond it are refused (REFUSED_STREAM)
     * @param maxResetsPerWindow RST_STREAM frames a client may send, and the server may be provoked into sending,
     *        within {@code resetWindow} before the connection is closed with ENHANCE_YOUR_CALM (Rapid Reset,
     *        MadeYouReset)
     * @param resetWindow the window for {@code maxResetsPerWindow}
     * @param maxQueuedControlFrames SETTINGS/PING acknowledgements and RST_STREAMs queued for a client that does not
     *        read before the connection is closed with ENHANCE_YOUR_CALM
     * @param maxConsecutiveEmptyDataFrames empty DATA frames without END_STREAM in a row before ENHANCE_YOUR_CALM
     * @param maxSmallContinuationFrames CONTINUATION frames of a header block that are too small to be useful
     */
    record Http2Limits(int maxConcurrentStreams, int maxResetsPerWindow, Duration resetWindow,
            int maxQueuedControlFrames, int maxConsecutiveEmptyDataFrames, int maxSmallContinuationFrames) {
    }
}
