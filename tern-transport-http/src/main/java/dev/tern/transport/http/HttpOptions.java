package dev.tern.transport.http;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

import dev.tern.protocol.CodecLimits;
import dev.tern.server.EventStore;
import dev.tern.server.InMemoryEventStore;
import dev.tern.server.SessionStore;

/**
 * The settings an {@link HttpServerTransport} serves with, in groups, as {@link HttpServerTransport.Builder} set them
 * (defaults for what it did not set); read back with {@link HttpServerTransport#options()}. Immutable. Each group's
 * builder holds the group's defaults, next to the option they belong to.
 */
public final class HttpOptions {
    private final String host;
    private final int port;
    private final String path;
    private final Set<String> allowedHosts;
    private final Set<String> allowedOrigins;
    private final IoTransport ioTransport;
    private final Duration shutdownTimeout;
    private final boolean serverTiming;
    private final boolean restFacade;
    private final List<String> routes;
    private final Limits limits;
    private final ConnectionLimits connections;
    private final Http2 http2;
    private final Tls tls;
    private final Sessions sessions;
    private final Sse sse;
    private final WebSocket webSocket;
    private final dev.tern.auth.ResourceServer auth;

    HttpOptions(String host, int port, String path, Set<String> allowedHosts, Set<String> allowedOrigins,
            IoTransport ioTransport, Duration shutdownTimeout, boolean serverTiming, boolean restFacade,
            List<String> routes, Limits limits, ConnectionLimits connections, Http2 http2, Tls tls, Sessions sessions,
            Sse sse, WebSocket webSocket, dev.tern.auth.ResourceServer auth) {
        this.host = host;
        this.port = port;
        this.path = path;
        this.allowedHosts = Set.copyOf(allowedHosts);
        this.allowedOrigins = Set.copyOf(allowedOrigins);
        this.ioTransport = ioTransport;
        this.shutdownTimeout = shutdownTimeout;
        this.serverTiming = serverTiming;
        this.restFacade = restFacade;
        this.routes = List.copyOf(routes);
        this.limits = limits;
        this.connections = connections;
        this.http2 = http2;
        this.tls = tls;
        this.sessions = sessions;
        this.sse = sse;
        this.webSocket = webSocket;
        this.auth = auth;
    }

    /** The address bound (default 127.0.0.1). */
    public String host() {
        return host;
    }

    /** The port asked for (default 8080; 0 for any free one, see {@link HttpServerTransport#port()}). */
    public int port() {
        return port;
    }

    /** The MCP endpoint's path (default {@code /mcp}). */
    public String path() {
        return path;
    }

    /** Host names accepted besides the loopback names (the bound host among them when it is not 127.0.0.1). */
    public Set<String> allowedHosts() {
        return allowedHosts;
    }

    /** Origins accepted besides those on allowed hosts. */
    public Set<String> allowedOrigins() {
        return allowedOrigins;
    }

    /** How the event loops reach the sockets, as asked for (see {@link HttpServerTransport#ioTransport()}). */
    public IoTransport ioTransport() {
        return ioTransport;
    }

    /** How long {@link HttpServerTransport#close()} lets requests in flight finish. */
    public Duration shutdownTimeout() {
        return shutdownTimeout;
    }

    /** Whether JSON responses carry a {@code Server-Timing} header. */
    public boolean serverTiming() {
        return serverTiming;
    }

    /** Whether the REST façade ({@code /rest/...}, {@code /openapi.json}) is served. */
    public boolean restFacade() {
        return restFacade;
    }

    /** The plain routes mounted, as {@code METHOD /path}, in the order mounted (the REST façade's not listed). */
    public List<String> routes() {
        return routes;
    }

    public Limits limits() {
        return limits;
    }

    public ConnectionLimits connections() {
        return connections;
    }

    public Http2 http2() {
        return http2;
    }

    /** TLS, when served; empty for plain HTTP. */
    public Optional<Tls> tls() {
        return Optional.ofNullable(tls);
    }

    public Sessions sessions() {
        return sessions;
    }

    public Sse sse() {
        return sse;
    }

    /** The WebSocket endpoint, when served (the default); empty when turned off. */
    public Optional<WebSocket> webSocket() {
        return Optional.ofNullable(webSocket);
    }

    /** The OAuth 2.1 resource server every request is checked by, when on; empty when off (the default). */
    public Optional<dev.tern.auth.ResourceServer> auth() {
        return Optional.ofNullable(auth);
    }

    /** The settings, for logs and start-up lines; the resource server's shows its issuers, resource and scopes, never a secret. */
    @Override
    public String toString() {
        return "HttpOptions[host=" + host + ", port=" + port + ", path=" + path + ", allowedHosts=" + allowedHosts
                + ", allowedOrigins=" + allowedOrigins + ", ioTransport=" + ioTransport + ", shutdownTimeout="
                + shutdownTimeout + ", serverTiming=" + serverTiming + ", restFacade=" + restFacade + ", routes="
                + routes + ", " + limits + ", " + connections + ", " + http2 + ", " + (tls == null ? "Tls[off]" : tls)
                + ", " + sessions + ", " + sse + ", " + (webSocket == null ? "WebSocket[off]" : webSocket) + ", auth="
                + (auth == null ? "off" : auth) + "]";
    }

    static int positive(String name, int value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + ": " + value + " (expected: > 0)");
        }
        return value;
    }

    static long positive(String name, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + ": " + value + " (expected: > 0)");
        }
        return value;
    }

    static Duration positive(String name, Duration value) {
        Objects.requireNonNull(value, name);
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + ": " + value + " (expected: > 0)");
        }
        return value;
    }

    static String absolutePath(String name, String value) {
        Objects.requireNonNull(value, name);
        if (!value.startsWith("/")) {
            throw new IllegalArgumentException(name + ": " + value + " (expected: starting with /)");
        }
        return value;
    }

    /**
     * Bounds on requests.
     *
     * @param messages bounds on each JSON-RPC message (size, nesting, strings, numbers, batches); the size also bounds
     *        request bodies (413 beyond it)
     * @param maxInitialLineLength longest HTTP/1.1 request line; a longer one gets 414
     * @param maxHeaderSize largest header section: HTTP/1.1 headers beyond it get 431; on HTTP/2 it is
     *        SETTINGS_MAX_HEADER_LIST_SIZE
     * @param maxInFlight requests served at once (open listens and streams not counted); beyond it a fast 503
     */
    public record Limits(CodecLimits messages, int maxInitialLineLength, int maxHeaderSize, int maxInFlight) {

        /** Sets {@link Limits}; made by {@link HttpServerTransport.Builder#limits}. */
        public static final class Builder {
            private CodecLimits messages = CodecLimits.DEFAULT;
            private int maxInitialLineLength = 8192;
            private int maxHeaderSize = 16 * 1024;
            private int maxInFlight = 4_096;

            Builder() {
            }

            /** Bounds on each message (default {@link CodecLimits#DEFAULT}); the size also bounds request bodies. */
            public Builder messages(CodecLimits limits) {
                this.messages = Objects.requireNonNull(limits, "limits.messages");
                return this;
            }

            /** Longest HTTP/1.1 request line (default 8 KiB); a longer one gets 414. */
            public Builder maxInitialLineLength(int bytes) {
                this.maxInitialLineLength = positive("limits.maxInitialLineLength", bytes);
                return this;
            }

            /**
             * Largest header section (default 16 KiB): HTTP/1.1 headers beyond it get 431; on HTTP/2 it is
             * SETTINGS_MAX_HEADER_LIST_SIZE and a larger header list gets 431 or a stream reset.
             */
            public Builder maxHeaderSize(int bytes) {
                this.maxHeaderSize = positive("limits.maxHeaderSize", bytes);
                return this;
            }

            /**
             * Requests served at once (default 4,096; open listens and streams not counted); beyond it requests get a
             * fast 503 with Retry-After.
             */
            public Builder maxInFlight(int max) {
                this.maxInFlight = positive("limits.maxInFlight", max);
                return this;
            }

            Limits build() {
                return new Limits(messages, maxInitialLineLength, maxHeaderSize, maxInFlight);
            }
        }
    }

    /**
     * Bounds on connections and on how slowly a peer may send or receive.
     *
     * @param max open connections in total; a connection beyond it is closed as soon as it is accepted
     * @param maxPerAddress open connections from one client IP address
     * @param idleTimeout a connection with no traffic either way for this long is closed (within a quarter of it more:
     *        traffic is looked for four times per timeout)
     * @param requestHeaderTimeout from the first byte of a request to the end of its headers (HTTP/1.1 request line
     *        and headers, HTTP/2 HEADERS and CONTINUATION frames); then 408 and close
     * @param requestBodyTimeout from the end of the headers to the end of the body; then 408
     * @param writeTimeout how long a response may make no progress towards a client that does not read; then the
     *        stream is dropped (HTTP/2 RST_STREAM) or the connection closed (HTTP/1.1)
     * @param maxBufferedResponseBytes response bytes queued for one slow client; beyond it the stream is dropped
     */
    public record ConnectionLimits(int max, int maxPerAddress, Duration idleTimeout, Duration requestHeaderTimeout,
            Duration requestBodyTimeout, Duration writeTimeout, long maxBufferedResponseBytes) {

        /** Sets {@link ConnectionLimits}; made by {@link HttpServerTransport.Builder#connections}. */
        public static final class Builder {
            private int max = 10_000;
            private int maxPerAddress = 512;
            private Duration idleTimeout = Duration.ofSeconds(60);
            private Duration requestHeaderTimeout = Duration.ofSeconds(10);
            private Duration requestBodyTimeout = Duration.ofSeconds(30);
            private Duration writeTimeout = Duration.ofSeconds(30);
            private long maxBufferedResponseBytes = 4L * 1024 * 1024;

            Builder() {
            }

            /** Open connections in total (default 10 000); more are closed as soon as they are accepted. */
            public Builder max(int max) {
                this.max = positive("connections.max", max);
                return this;
            }

            /**
             * Open connections from one client IP address (default 512; a global IPv6 address counts as its /64
             * network, which one host commonly has to itself); more are closed as soon as accepted.
             */
            public Builder maxPerAddress(int max) {
                this.maxPerAddress = positive("connections.maxPerAddress", max);
                return this;
            }

            /** A connection with no traffic either way for this long is closed (default 60 s). */
            public Builder idleTimeout(Duration timeout) {
                this.idleTimeout = positive("connections.idleTimeout", timeout);
                return this;
            }

            /**
             * From the first byte of a request to the end of its headers (default 10 s), against slowloris; then 408
             * and the connection is closed. HTTP/1.1.
             */
            public Builder requestHeaderTimeout(Duration timeout) {
                this.requestHeaderTimeout = positive("connections.requestHeaderTimeout", timeout);
                return this;
            }

            /** From the end of the headers to the end of the body (default 30 s), against slow POSTs; then 408. */
            public Builder requestBodyTimeout(Duration timeout) {
                this.requestBodyTimeout = positive("connections.requestBodyTimeout", timeout);
                return this;
            }

            /**
             * How long a response may make no progress towards a client that does not read (default 30 s); then its
             * stream is reset (HTTP/2) or its connection closed (HTTP/1.1). A request whose stream is dropped in the
             * 2026-07-28 era is cancelled.
             */
            public Builder writeTimeout(Duration timeout) {
                this.writeTimeout = positive("connections.writeTimeout", timeout);
                return this;
            }

            /** Response bytes queued for one slow client (default 4 MiB) before its stream is dropped. */
            public Builder maxBufferedResponseBytes(long bytes) {
                this.maxBufferedResponseBytes = positive("connections.maxBufferedResponseBytes", bytes);
                return this;
            }

            ConnectionLimits build() {
                return new ConnectionLimits(max, maxPerAddress, idleTimeout, requestHeaderTimeout, requestBodyTimeout,
                        writeTimeout, maxBufferedResponseBytes);
            }
        }
    }

    /**
     * HTTP/2 settings and flood defences.
     *
     * @param maxConcurrentStreams SETTINGS_MAX_CONCURRENT_STREAMS; streams beyond it are refused (REFUSED_STREAM)
     * @param maxResets RST_STREAM frames a client may send, and the server may be provoked into sending, within
     *        {@code resetWindow} before the connection is closed with ENHANCE_YOUR_CALM (Rapid Reset, MadeYouReset)
     * @param resetWindow the window for {@code maxResets}
     * @param maxQueuedControlFrames SETTINGS/PING acknowledgements and RST_STREAMs queued for a client that does not
     *        read before the connection is closed with ENHANCE_YOUR_CALM
     * @param maxConsecutiveEmptyDataFrames empty DATA frames without END_STREAM in a row before ENHANCE_YOUR_CALM
     * @param maxSmallContinuationFrames CONTINUATION frames of a header block that are too small to be useful
     */
    public record Http2(int maxConcurrentStreams, int maxResets, Duration resetWindow, int maxQueuedControlFrames,
            int maxConsecutiveEmptyDataFrames, int maxSmallContinuationFrames) {

        /** Sets {@link Http2}; made by {@link HttpServerTransport.Builder#http2}. */
        public static final class Builder {
            private int maxConcurrentStreams = 256;
            private int maxResets = 200;
            private Duration resetWindow = Duration.ofSeconds(30);
            private int maxQueuedControlFrames = 10_000;
            private int maxConsecutiveEmptyDataFrames = 2;
            private int maxSmallContinuationFrames = 16;

            Builder() {
            }

            /** SETTINGS_MAX_CONCURRENT_STREAMS (default 256); streams beyond it get RST_STREAM REFUSED_STREAM. */
            public Builder maxConcurrentStreams(int max) {
                this.maxConcurrentStreams = positive("http2.maxConcurrentStreams", max);
                return this;
            }

            /**
             * Resets allowed per window (default 200 per 30 s), counted separately for RST_STREAM frames the client
             * sends (Rapid Reset) and those it provokes the server into sending (MadeYouReset); beyond it the
             * connection is closed with GOAWAY ENHANCE_YOUR_CALM.
             */
            public Builder maxResets(int count, Duration window) {
                this.maxResets = positive("http2.maxResets", count);
                this.resetWindow = positive("http2.resetWindow", window);
                return this;
            }

            /**
             * Control frames (PING and SETTINGS acknowledgements, RST_STREAM) queued for a client that does not read
             * (default 10 000); beyond it the connection is closed with GOAWAY ENHANCE_YOUR_CALM.
             */
            public Builder maxQueuedControlFrames(int max) {
                this.maxQueuedControlFrames = positive("http2.maxQueuedControlFrames", max);
                return this;
            }

            /** Empty DATA frames in a row (default 2) before the connection is closed with ENHANCE_YOUR_CALM. */
            public Builder maxConsecutiveEmptyDataFrames(int max) {
                this.maxConsecutiveEmptyDataFrames = positive("http2.maxConsecutiveEmptyDataFrames", max);
                return this;
            }

            /** Small CONTINUATION frames in one header block (default 16) before the connection is closed. */
            public Builder maxSmallContinuationFrames(int max) {
                this.maxSmallContinuationFrames = positive("http2.maxSmallContinuationFrames", max);
                return this;
            }

            Http2 build() {
                return new Http2(maxConcurrentStreams, maxResets, resetWindow, maxQueuedControlFrames,
                        maxConsecutiveEmptyDataFrames, maxSmallContinuationFrames);
            }
        }
    }

    /**
     * TLS with ALPN (h2, http/1.1): a certificate chain and key in PEM, or a self-signed development certificate.
     *
     * @param certificateChain the PEM certificate chain; {@code null} for a self-signed certificate
     * @param privateKey the PKCS#8 PEM key; {@code null} for a self-signed certificate
     * @param protocols the TLS versions offered, newest first (never older than TLS 1.2)
     * @param handshakeTimeout how long a client may take to complete the handshake before the connection is closed
     * @param clientAuth whether clients are asked for a certificate
     * @param trust the PEM certificates of the authorities client certificates must chain to; {@code null} when
     *        {@code clientAuth} is {@link ClientAuth#NONE}
     * @param revocationList the PEM CRLs client certificates are checked against; {@code null} for no check
     * @param reloadInterval how often the files are checked for changes; {@link Duration#ZERO} for never
     * @param hsts the {@code Strict-Transport-Security} header sent; {@code null} for none
     * @param ocspStapling whether the certificate's OCSP response is fetched and stapled to handshakes
     */
    public record Tls(Path certificateChain, Path privateKey, List<String> protocols, Duration handshakeTimeout,
            ClientAuth clientAuth, Path trust, Path revocationList, Duration reloadInterval, Hsts hsts,
            boolean ocspStapling) {
        private static final List<String> SUPPORTED = List.of("TLSv1.3", "TLSv1.2");

        /** Whether clients are asked for a certificate in the handshake. */
        public enum ClientAuth {
            /** Not asked. */
            NONE,
            /** Asked; a client may present none, but one it presents must be valid. */
            OPTIONAL,
            /** Asked, and the handshake fails without a valid one. */
            REQUIRED;

            /** {@code none}, {@code optional} or {@code required}, in any case. */
            public static ClientAuth parse(String value) {
                for (ClientAuth c : values()) {
                    if (c.name().equalsIgnoreCase(value)) {
                        return c;
                    }
                }
                throw new IllegalArgumentException("tls.clientAuth: " + value + " (expected: none, optional or required)");
            }
        }

        /**
         * The {@code Strict-Transport-Security} header: browsers that saw it use only HTTPS for the host for
         * {@code maxAge}.
         */
        public record Hsts(Duration maxAge, boolean includeSubDomains) {
            /** The header's name. */
            public static final String HEADER = "strict-transport-security";

            /** The header's value. */
            public String headerValue() {
                return "max-age=" + maxAge.toSeconds() + (includeSubDomains ? "; includeSubDomains" : "");
            }
        }

        /** Whether the certificate is made at start-up, for development. */
        public boolean selfSigned() {
            return certificateChain == null;
        }

        /** Sets {@link Tls}; made by {@link HttpServerTransport.Builder#tls}, which needs a certificate. */
        public static final class Builder {
            private Path certificateChain;
            private Path privateKey;
            private boolean certificateSet;
            private List<String> protocols = SUPPORTED;
            private Duration handshakeTimeout = Duration.ofSeconds(10);
            private ClientAuth clientAuth = ClientAuth.NONE;
            private Path trust;
            private Path revocationList;
            private Duration reloadInterval = Duration.ofSeconds(10);
            private Hsts hsts;
            private boolean ocspStapling;

            Builder() {
            }

            /**
             * Serves this PEM certificate chain and PKCS#8 PEM key. Both files are checked for changes every
             * {@link #reloadInterval}: new connections then get the new certificate, while a pair that does not load
             * (or whose key does not match) is logged and the one in use kept.
             */
            public Builder certificate(Path chain, Path key) {
                this.certificateChain = Objects.requireNonNull(chain, "tls.certificate chain");
                this.privateKey = Objects.requireNonNull(key, "tls.certificate key");
                this.certificateSet = true;
                return this;
            }

            /** Serves a self-signed certificate made at start-up, for development. */
            public Builder selfSigned() {
                this.certificateChain = null;
                this.privateKey = null;
                this.certificateSet = true;
                return this;
            }

            /**
             * The TLS versions offered (default TLS 1.3 and 1.2); only {@code TLSv1.3} and {@code TLSv1.2} are
             * accepted. Client-initiated renegotiation on TLS 1.2 is always refused.
             */
            public Builder protocols(String... protocols) {
                List<String> list = List.of(protocols);
                if (list.isEmpty() || !SUPPORTED.containsAll(list)) {
                    throw new IllegalArgumentException("tls.protocols: " + list
                            + " (expected: TLSv1.3 and/or TLSv1.2)");
                }
                this.protocols = list;
                return this;
            }

            /** How long a client may take to complete the TLS handshake (default 10 s). */
            public Builder handshakeTimeout(Duration timeout) {
                this.handshakeTimeout = positive("tls.handshakeTimeout", timeout);
                return this;
            }

            /**
             * Whether clients are asked for a certificate (default {@link ClientAuth#NONE}); other than {@code NONE}
             * it needs {@link #trust}. A client's verified certificate is its connection's, for every request on it.
             */
            public Builder clientAuth(ClientAuth clientAuth) {
                this.clientAuth = Objects.requireNonNull(clientAuth, "tls.clientAuth");
                return this;
            }

            /** The PEM certificates of the authorities that issue client certificates. */
            public Builder trust(Path authorities) {
                this.trust = Objects.requireNonNull(authorities, "tls.trust");
                return this;
            }

            /**
             * Checks client certificates against the CRLs in this PEM file, one from each authority in their chains:
             * a revoked certificate, or one whose authority has no CRL there, fails the handshake. The file is
             * reloaded when it changes, as the certificate is.
             */
            public Builder revocationList(Path crls) {
                this.revocationList = Objects.requireNonNull(crls, "tls.revocationList");
                return this;
            }

            /**
             * How often the certificate, key, trust and CRL files are checked for changes (default 10 s;
             * {@link Duration#ZERO} never checks).
             */
            public Builder reloadInterval(Duration interval) {
                Objects.requireNonNull(interval, "tls.reloadInterval");
                if (interval.isNegative()) {
                    throw new IllegalArgumentException("tls.reloadInterval: " + interval + " (expected: zero or more)");
                }
                this.reloadInterval = interval;
                return this;
            }

            /**
             * Sends {@code Strict-Transport-Security: max-age=...} on every response (default: not sent), telling
             * browsers to reach this host over HTTPS only for {@code maxAge}; with {@code includeSubDomains}, its
             * subdomains too.
             */
            public Builder hsts(Duration maxAge, boolean includeSubDomains) {
                this.hsts = new Hsts(positive("tls.hsts maxAge", maxAge), includeSubDomains);
                return this;
            }

            /**
             * Staples the certificate's OCSP response to handshakes (default: off), so that clients learn it is not
             * revoked without asking the authority themselves. The response comes from the responder the
             * certificate's Authority Information Access names, for which the certificate file must hold the issuer's
             * certificate after the certificate; it is fetched again half-way to its {@code nextUpdate}. Needs the
             * BoringSSL provider (see {@link HttpServerTransport}); without it, or without a responder, the server
             * serves without stapling and logs why.
             */
            public Builder ocspStapling(boolean enabled) {
                this.ocspStapling = enabled;
                return this;
            }

            Tls build() {
                if (!certificateSet) {
                    throw new IllegalArgumentException(
                            "tls: no certificate (expected: certificate(chain, key) or selfSigned())");
                }
                if (clientAuth != ClientAuth.NONE && trust == null) {
                    throw new IllegalArgumentException("tls.clientAuth " + clientAuth.name().toLowerCase(java.util.Locale.ROOT)
                            + " needs trust(authorities): the certificates client certificates must chain to");
                }
                if (clientAuth == ClientAuth.NONE && revocationList != null) {
                    throw new IllegalArgumentException("tls.revocationList is for client certificates: set clientAuth");
                }
                return new Tls(certificateChain, privateKey, protocols, handshakeTimeout, clientAuth,
                        clientAuth == ClientAuth.NONE ? null : trust, revocationList, reloadInterval, hsts,
                        ocspStapling && certificateChain != null);
            }
        }
    }

    /**
     * Legacy sessions (2025-11-25 and earlier), and the per-client shares of what a client may hold open.
     *
     * @param max legacy sessions held at once; the same bound applies, each on its own, to the open 2026-07-28
     *        listens and to the 2024-11-05 SSE connections; beyond it 503 with Retry-After
     * @param maxPerClient the most one client may hold of each bound {@code max} sets; beyond it 429
     * @param idleTimeout a session unused for this long is ended
     * @param eventStore where the SSE events of sessions are kept so clients can resume with {@code Last-Event-ID}
     * @param principals who a request's client is: sessions are bound to it, and shares are counted by it
     * @param store where the state of sessions is shared with other nodes ({@link SessionStore#LOCAL}: nowhere)
     * @param idKeys the keys that sign session ids, the first signing and all accepted (none: ids are not signed)
     */
    public record Sessions(int max, int maxPerClient, Duration idleTimeout, EventStore eventStore,
            PrincipalResolver principals, SessionStore store, List<byte[]> idKeys) {

        public Sessions {
            idKeys = idKeys.stream().map(byte[]::clone).toList();
        }

        @Override
        public String toString() {
            return "Sessions[max=" + max + ", maxPerClient=" + maxPerClient + ", idleTimeout=" + idleTimeout
                    + ", eventStore=" + eventStore.getClass().getSimpleName() + ", principals="
                    + (principals == PrincipalResolver.ANONYMOUS ? "anonymous" : "resolved")
                    + ", store=" + (store == SessionStore.LOCAL ? "local" : store.getClass().getSimpleName())
                    + ", signedIds=" + !idKeys.isEmpty() + "]";
        }

        /** Sets {@link Sessions}; made by {@link HttpServerTransport.Builder#sessions}. */
        public static final class Builder {
            private int max = 10_000;
            private int maxPerClient = 1_000;
            private Duration idleTimeout = Duration.ofMinutes(30);
            private EventStore eventStore = new InMemoryEventStore();
            private PrincipalResolver principals = PrincipalResolver.ANONYMOUS;
            private SessionStore store = SessionStore.LOCAL;
            private List<byte[]> idKeys = List.of();

            Builder() {
            }

            /**
             * Legacy sessions held at once (default 10,000); the same bound applies, each on its own, to the open
             * 2026-07-28 listens, to the 2024-11-05 SSE connections and to WebSocket connections. Beyond it: 503
             * with Retry-After.
             */
            public Builder max(int max) {
                this.max = positive("sessions.max", max);
                return this;
            }

            /**
             * The most one client may hold of each bound {@link #max} sets (default 1,000): so many legacy sessions,
             * so many open listens, so many 2024-11-05 SSE connections, so many WebSocket connections. A client is the principal the
             * {@link #principals resolver} names, or, for an anonymous request, the IP address it connects from (an
             * IPv6 address's /64, as for {@link ConnectionLimits.Builder#maxPerAddress}); clients that reach the
             * server through one proxy share its address, so such a deployment resolves principals or raises this.
             * Beyond it: 429 with Retry-After, while other clients are still served.
             */
            public Builder maxPerClient(int max) {
                this.maxPerClient = positive("sessions.maxPerClient", max);
                return this;
            }

            /** A session unused for this long is ended (default 30 min). */
            public Builder idleTimeout(Duration timeout) {
                this.idleTimeout = positive("sessions.idleTimeout", timeout);
                return this;
            }

            /**
             * Where the SSE events of legacy sessions are kept so clients can resume a lost stream with
             * {@code Last-Event-ID} (default: in memory, bounded).
             */
            public Builder eventStore(EventStore store) {
                this.eventStore = Objects.requireNonNull(store, "sessions.eventStore");
                return this;
            }

            /** Binds each legacy session to the principal that opened it (see {@link PrincipalResolver}). */
            public Builder principals(PrincipalResolver resolver) {
                this.principals = Objects.requireNonNull(resolver, "sessions.principals");
                return this;
            }

            /**
             * Where the state of legacy sessions is shared, so that any of many nodes serves any session (default:
             * {@link SessionStore#LOCAL}, each session lives on the node that opened it). A shared store goes with a
             * shared {@link #eventStore}, so that a stream lost on one node resumes on another.
             */
            public Builder store(SessionStore store) {
                this.store = Objects.requireNonNull(store, "sessions.store");
                return this;
            }

            /**
             * Signs session ids with {@code current} (HMAC-SHA256, at least 32 bytes) and accepts ids signed with
             * any of {@code previous}, so that nodes sharing sessions refuse made-up ids without asking the
             * {@link #store}, and a key rotates with an overlap (default: ids are random, unsigned).
             */
            public Builder idKeys(byte[] current, byte[]... previous) {
                List<byte[]> keys = new java.util.ArrayList<>();
                keys.add(current);
                keys.addAll(List.of(previous));
                for (byte[] key : keys) {
                    if (key.length < 32) {
                        throw new IllegalArgumentException("sessions.idKeys: " + key.length + " bytes (expected: >= 32)");
                    }
                }
                this.idKeys = keys;
                return this;
            }

            Sessions build() {
                return new Sessions(max, maxPerClient, idleTimeout, eventStore, principals, store, idKeys);
            }
        }
    }

    /**
     * Server-sent event streams.
     *
     * @param keepAlive how often an idle stream gets a keep-alive comment
     * @param replies whether every POSTed MCP request is answered with a stream, even when its answer is its only
     *        message
     * @param legacy where the deprecated 2024-11-05 HTTP+SSE transport is served; empty when it is not
     */
    public record Sse(Duration keepAlive, boolean replies, Optional<LegacyPaths> legacy) {

        /** The paths of the 2024-11-05 HTTP+SSE transport: a GET on {@code ssePath}, POSTs to {@code messagesPath}. */
        public record LegacyPaths(String ssePath, String messagesPath) {
        }

        /** Sets {@link Sse}; made by {@link HttpServerTransport.Builder#sse}. */
        public static final class Builder {
            private Duration keepAlive = Duration.ofSeconds(15);
            private boolean replies;
            private LegacyPaths legacy = new LegacyPaths("/sse", "/messages");

            Builder() {
            }

            /** How often an idle SSE stream gets a keep-alive comment (default 15 s). */
            public Builder keepAlive(Duration every) {
                this.keepAlive = positive("sse.keepAlive", every);
                return this;
            }

            /**
             * Answers every POSTed MCP request with an SSE stream, even when its answer is its only message (as the
             * TypeScript SDK does by default). Off by default: a lone successful answer goes as one JSON body, and a
             * stream opens only when a notification or request comes before the answer.
             */
            public Builder replies(boolean enabled) {
                this.replies = enabled;
                return this;
            }

            /**
             * Serves the deprecated HTTP+SSE transport of 2024-11-05 for old clients: a GET on {@code ssePath} opens
             * the stream, messages are POSTed to {@code messagesPath}. On by default at {@code /sse} and
             * {@code /messages}.
             */
            public Builder legacy(String ssePath, String messagesPath) {
                absolutePath("sse.legacy", ssePath);
                absolutePath("sse.legacy", messagesPath);
                if (ssePath.equals(messagesPath)) {
                    throw new IllegalArgumentException("sse.legacy: " + ssePath + ", " + messagesPath
                            + " (expected: two different paths)");
                }
                this.legacy = new LegacyPaths(ssePath, messagesPath);
                return this;
            }

            /** Serves only Streamable HTTP: no 2024-11-05 HTTP+SSE endpoints. */
            public Builder noLegacy() {
                this.legacy = null;
                return this;
            }

            Sse build() {
                return new Sse(keepAlive, replies, Optional.ofNullable(legacy));
            }
        }
    }

    /**
     * The WebSocket endpoint: MCP messages as text frames on one long-lived connection (subprotocol {@code mcp}).
     *
     * @param path where the upgrade is accepted
     * @param maxMessageBytes largest message, all its fragments together; a larger one closes the connection with 1009
     * @param maxFrameBytes largest frame payload; a larger one closes the connection with 1009
     * @param maxFragments frames one message may be split into; more close the connection with 1008
     * @param pingInterval how often a connection with no traffic either way is pinged
     * @param idleTimeout a connection from which nothing (not even a pong) arrives for this long is closed with 1001
     * @param maxControlFrames pings and pongs a client may send within {@code controlFrameWindow}; more close the
     *        connection with 1008
     * @param controlFrameWindow the window for {@code maxControlFrames}
     * @param maxInFlight requests of one connection served at once; beyond it no more is read until one finishes
     */
    public record WebSocket(String path, int maxMessageBytes, int maxFrameBytes, int maxFragments, Duration pingInterval,
            Duration idleTimeout, int maxControlFrames, Duration controlFrameWindow, int maxInFlight) {

        /** Sets {@link WebSocket}; made by {@link HttpServerTransport.Builder#webSocket}. */
        public static final class Builder {
            private boolean enabled = true;
            private String path = "/mcp/ws";
            /** Unset: the message limit of {@link Limits#messages()}. */
            private int maxMessageBytes;
            /** Unset: the message limit. */
            private int maxFrameBytes;
            private int maxFragments = 1_024;
            private Duration pingInterval = Duration.ofSeconds(30);
            private Duration idleTimeout = Duration.ofSeconds(90);
            private int maxControlFrames = 100;
            private Duration controlFrameWindow = Duration.ofSeconds(10);
            private int maxInFlight = 256;

            Builder() {
            }

            /** Where the upgrade is accepted (default {@code /mcp/ws}). */
            public Builder path(String path) {
                this.path = absolutePath("webSocket.path", path);
                return this;
            }

            /**
             * Largest message, all its fragments together (default: the message limit of {@code limits}); a larger
             * one closes the connection with 1009.
             */
            public Builder maxMessage(int bytes) {
                this.maxMessageBytes = positive("webSocket.maxMessage", bytes);
                return this;
            }

            /** Largest frame payload (default: the largest message); a larger one closes the connection with 1009. */
            public Builder maxFrame(int bytes) {
                this.maxFrameBytes = positive("webSocket.maxFrame", bytes);
                return this;
            }

            /** Frames one message may be split into (default 1,024); more close the connection with 1008. */
            public Builder maxFragments(int max) {
                this.maxFragments = positive("webSocket.maxFragments", max);
                return this;
            }

            /** How often a connection with no traffic either way is pinged (default 30 s). */
            public Builder pingInterval(Duration every) {
                this.pingInterval = positive("webSocket.pingInterval", every);
                return this;
            }

            /**
             * A connection from which nothing arrives for this long, not even the pong to a ping, is closed with 1001
             * (default 90 s; longer than the ping interval).
             */
            public Builder idleTimeout(Duration timeout) {
                this.idleTimeout = positive("webSocket.idleTimeout", timeout);
                return this;
            }

            /** Pings and pongs a client may send per window (default 100 per 10 s); more close with 1008. */
            public Builder maxControlFrames(int count, Duration window) {
                this.maxControlFrames = positive("webSocket.maxControlFrames", count);
                this.controlFrameWindow = positive("webSocket.controlFrameWindow", window);
                return this;
            }

            /** Requests of one connection served at once (default 256); beyond it reading pauses. */
            public Builder maxInFlight(int max) {
                this.maxInFlight = positive("webSocket.maxInFlight", max);
                return this;
            }

            /** Serves no WebSocket endpoint. */
            public Builder off() {
                this.enabled = false;
                return this;
            }

            WebSocket build(CodecLimits messages) {
                if (!enabled) {
                    return null;
                }
                if (idleTimeout.compareTo(pingInterval) <= 0) {
                    throw new IllegalArgumentException("webSocket.idleTimeout: " + idleTimeout
                            + " (expected: longer than webSocket.pingInterval " + pingInterval + ")");
                }
                int message = maxMessageBytes > 0 ? maxMessageBytes : messages.maxMessageBytes();
                int frame = maxFrameBytes > 0 ? Math.min(maxFrameBytes, message) : message;
                return new WebSocket(path, message, frame, maxFragments, pingInterval, idleTimeout, maxControlFrames,
                        controlFrameWindow, maxInFlight);
            }
        }
    }
}
