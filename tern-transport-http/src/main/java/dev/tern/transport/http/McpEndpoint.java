package dev.tern.transport.http;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;

import dev.tern.protocol.Decoded;
import dev.tern.protocol.ErrorCodes;
import dev.tern.protocol.Json;
import dev.tern.protocol.JsonRpcCodec;
import dev.tern.protocol.JsonRpcError;
import dev.tern.protocol.JsonRpcFailure;
import dev.tern.protocol.JsonRpcMessage;
import dev.tern.protocol.JsonRpcNotification;
import dev.tern.protocol.JsonRpcRequest;
import dev.tern.protocol.JsonRpcResponse;
import dev.tern.protocol.McpException;
import dev.tern.protocol.McpMeta;
import dev.tern.protocol.ProtocolRules;
import dev.tern.protocol.ProtocolVersion;
import dev.tern.protocol.RequestId;
import dev.tern.server.McpServer;
import dev.tern.server.Outbound;
import dev.tern.server.StatelessRequest;
import dev.tern.server.StoreUnavailableException;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.AsciiString;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The MCP endpoint's logic, apart from Netty: chooses the era of each POST, checks the headers each era requires,
 * keeps legacy sessions, and connects requests to the server with their responses routed back to the right HTTP
 * exchange. Thread-safe.
 */
final class McpEndpoint {
    static final AsciiString SESSION_ID = AsciiString.cached("mcp-session-id");
    static final AsciiString LAST_EVENT_ID = AsciiString.cached("last-event-id");

    private final McpServer server;
    private final JsonRpcCodec codec;
    private final Encodings encodings;
    private final HeaderCheck headerCheck = new HeaderCheck();
    private final AtomicInteger pendingWriteWatches = new AtomicInteger();
    private final HttpOptions options;
    private final SessionManager sessions;
    private final LegacySseEndpoint legacySse;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final OpenExchanges open = new OpenExchanges();
    /** The open 2026-07-28 {@code subscriptions/listen} requests and their event loops. */
    private final Map<StatelessRequest, Executor> listens = new ConcurrentHashMap<>();
    private final ClientShares listenShares;
    private final java.util.concurrent.atomic.LongAdder shed = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder refusedByShare = new java.util.concurrent.atomic.LongAdder();
    private final AtomicInteger sseStreams = new AtomicInteger();
    private final java.util.concurrent.atomic.LongAdder tlsHandshakes = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder tlsHandshakeFailures =
            new java.util.concurrent.atomic.LongAdder();
    private volatile boolean draining;
    /** Asks about each request's token; {@code null} when the transport takes requests without one. */
    private final AuthGate auth;

    McpEndpoint(McpServer server, HttpOptions options, dev.tern.auth.ResourceServer resourceServer,
            dev.tern.auth.RateLimiter rateLimiter) {
        this.server = server;
        this.auth = resourceServer == null ? null : new AuthGate(resourceServer, rateLimiter, this);
        this.options = options;
        this.codec = new JsonRpcCodec(options.limits().messages());
        this.encodings = new Encodings(codec);
        this.sessions = new SessionManager(server, codec, options.sessions().max(), options.sessions().maxPerClient(),
                options.sessions().idleTimeout(), options.sessions().eventStore(), options.sessions().store(),
                options.sessions().idKeys(), options.serverTiming());
        this.listenShares = new ClientShares(options.sessions().maxPerClient());
        this.legacySse = new LegacySseEndpoint(server, codec, options);
    }

    AuthGate auth() {
        return auth;
    }

    LegacySseEndpoint legacySse() {
        return legacySse;
    }

    SessionManager sessions() {
        return sessions;
    }

    int inFlight() {
        return inFlight.get();
    }

    /** Open 2026-07-28 {@code subscriptions/listen} requests. */
    int openListens() {
        return listens.size();
    }

    dev.tern.server.observe.McpObserver observer() {
        return server.observer();
    }

    /** The endpoint's counts as the server's observer reads them. */
    dev.tern.server.observe.TransportStats stats() {
        return new dev.tern.server.observe.TransportStats() {
            @Override
            public long requestsInFlight() {
                return inFlight.get();
            }

            @Override
            public long sessions() {
                return sessions.size();
            }

            @Override
            public long listens() {
                return listens.size();
            }

            @Override
            public long shed() {
                return shed.sum();
            }

            @Override
            public long refusedByShare() {
                return refusedByShare.sum();
            }

            @Override
            public long sseStreams() {
                return sseStreams.get();
            }

            @Override
            public long eventStoreSize() {
                return options.sessions().eventStore().size();
            }

            @Override
            public long tlsHandshakes() {
                return tlsHandshakes.sum();
            }

            @Override
            public long tlsHandshakeFailures() {
                return tlsHandshakeFailures.sum();
            }
        };
    }

    /** Open SSE streams of any kind, counted by the exchanges themselves. */
    AtomicInteger sseStreams() {
        return sseStreams;
    }

    /** A TLS handshake completed or failed. */
    void tlsHandshake(boolean completed) {
        (completed ? tlsHandshakes : tlsHandshakeFailures).increment();
    }

    /** Write watches pending on every exchange (each keeps its exchange alive until it fires or is cancelled). */
    AtomicInteger pendingWriteWatches() {
        return pendingWriteWatches;
    }

    /**
     * Refuses new requests from now on and ends the open {@code subscriptions/listen} streams with their final
     * result: a listen has no end of its own, so waiting for it would only hold the shutdown to its deadline.
     */
    void drain() {
        draining = true;
        // On the listen's event loop, after the request that opened it has been received there.
        listens.forEach((listen, loop) -> HttpExchange.later(loop, listen::close));
    }

    /** Answers 503 with Retry-After while the server shuts down. */
    void unavailable(HttpExchange exchange) {
        exchange.header(HttpHeaderNames.RETRY_AFTER, 1).header(HttpHeaderNames.CONNECTION, "close");
        error(exchange, HttpResponseStatus.SERVICE_UNAVAILABLE, null, ErrorCodes.INTERNAL_ERROR,
                "Service unavailable: the server is shutting down");
    }

    boolean draining() {
        return draining;
    }

    /** Serves GET, DELETE and body-less methods on the endpoint. */
    void handleWithoutBody(HttpMethod method, HttpHeaders headers, HttpExchange exchange) {
        String sessionId = headers.get(SESSION_ID);
        String headerVersion = headers.get(HeaderCheck.PROTOCOL_VERSION);
        if (sessionId != null && unknownVersion(headerVersion)
                && (method.equals(HttpMethod.GET) || method.equals(HttpMethod.DELETE))) {
            unsupportedVersion(exchange, null, headerVersion);
            return;
        }
        if (method.equals(HttpMethod.GET)) {
            if (sessionId == null || isModernHeader(headers)) {
                methodNotAllowed(exchange);
                return;
            }
            if (!accepts(headers, "text/event-stream")) {
                error(exchange, HttpResponseStatus.NOT_ACCEPTABLE, null, ErrorCodes.INVALID_REQUEST,
                        "Not Acceptable: a GET stream needs Accept: text/event-stream");
                return;
            }
            session(sessionId, headers, exchange, session -> {
                open.add(exchange);
                boolean opened;
                try {
                    opened = session.openStream(exchange, headers.get(LAST_EVENT_ID), options.sse().keepAlive());
                } catch (StoreUnavailableException e) {
                    storeUnavailable(exchange);
                    return;
                }
                if (!opened) {
                    error(exchange, HttpResponseStatus.CONFLICT, null, ErrorCodes.INVALID_REQUEST,
                            "Conflict: this session already has a GET stream open");
                }
            });
            return;
        }
        if (method.equals(HttpMethod.DELETE)) {
            if (sessionId == null || isModernHeader(headers)) {
                methodNotAllowed(exchange);
                return;
            }
            session(sessionId, headers, exchange, session -> {
                try {
                    sessions.remove(session, null);
                } catch (StoreUnavailableException e) {
                    storeUnavailable(exchange);
                    return;
                }
                exchange.empty(HttpResponseStatus.OK);
            });
            return;
        }
        methodNotAllowed(exchange);
    }

    /**
     * Admits a request (an MCP POST, a plain route, the REST façade): it counts in flight until it is done, and a
     * shutdown that outlasts it ends it. Returns false when it was refused with 503 (shutting down, or too many in
     * flight).
     */
    boolean admit(HttpExchange exchange) {
        if (draining) {
            unavailable(exchange);
            return false;
        }
        if (inFlight.incrementAndGet() > options.limits().maxInFlight()) {
            inFlight.decrementAndGet();
            shed.increment();
            exchange.header(HttpHeaderNames.RETRY_AFTER, 1);
            error(exchange, HttpResponseStatus.SERVICE_UNAVAILABLE, null, ErrorCodes.INTERNAL_ERROR,
                    "Service unavailable: too many requests in flight, retry shortly");
            return false;
        }
        open.add(exchange);
        exchange.onDone(() -> {
            if (exchange.giveBackSlot()) {
                inFlight.decrementAndGet();
            }
        });
        return true;
    }

    /**
     * A listen is a stream its client keeps open, as a legacy session's GET stream is: it gives back its place among
     * the requests in flight (held by the thousand it would shed every call) and counts against the sessions' bound,
     * and its client's share of it.
     */
    private boolean admitListen(HttpHeaders headers, HttpExchange exchange, RequestId id) {
        String client = listenShares.tryAcquire(ClientShares.client(principal(headers, exchange), exchange));
        if (client == null) {
            shareUsed(exchange, id, "open listens");
            return false;
        }
        if (listens.size() >= options.sessions().max()) {
            listenShares.release(client);
            serverFull(exchange, id, "open listens");
            return false;
        }
        exchange.onDone(() -> listenShares.release(client));
        if (exchange.giveBackSlot()) {
            inFlight.decrementAndGet();
        }
        return true;
    }

    /** Serves a POST whose whole body has arrived. */
    void handlePost(HttpHeaders headers, byte[] body, HttpExchange exchange) {
        if (server.observer().enabled()) {
            Observations.principal(exchange, principal(headers, exchange));
        }
        if (!admit(exchange)) {
            return;
        }
        if (options.sse().replies()) {
            exchange.sseReplies();
        }
        ServerTiming timing = options.serverTiming() ? new ServerTiming(System.nanoTime()) : null;
        String contentType = headers.get(HttpHeaderNames.CONTENT_TYPE);
        Decoded decoded = RequestDispatcher.isJson(contentType) ? codec.decode(body)
                : encodings.decode(headers, contentType, body, exchange);
        if (timing != null) {
            timing.parsed(System.nanoTime());
            exchange.timing(timing);
        }
        switch (decoded) {
            case Decoded.Invalid invalid -> {
                exchange.reply(HttpResponseStatus.BAD_REQUEST, codec, invalid.failure());
                Observations.refused(exchange, invalid.failure().error().code(), invalid.failure().error().message());
            }
            case Decoded.Ignored ignored -> {
                exchange.empty(HttpResponseStatus.ACCEPTED);
                Observations.unobserved(exchange);
            }
            case Decoded.Batch batch -> batch(headers, batch, exchange);
            case Decoded.Single single -> single(headers, single.message(), exchange);
        }
    }

    private void single(HttpHeaders headers, JsonRpcMessage message, HttpExchange exchange) {
        String sessionId = headers.get(SESSION_ID);
        String headerVersion = headers.get(HeaderCheck.PROTOCOL_VERSION);
        boolean modernMeta = message instanceof JsonRpcRequest mr && hasModernMeta(mr);
        if (!modernMeta && unknownVersion(headerVersion)) {
            // Neither era: a version this server does not speak at all (the body, if modern, is checked later).
            unsupportedVersion(exchange, message instanceof JsonRpcRequest r ? r.id() : null, headerVersion);
            return;
        }
        if (sessionId != null && !isModern(headers, message)) {
            session(sessionId, headers, exchange, session -> {
                if (legacyVersionHeaderOk(headers, exchange)) {
                    if (auth != null) {
                        session.caller(AuthCaller.of(exchange, auth));
                    }
                    legacy(session, message, exchange);
                }
            });
            return;
        }
        if (message instanceof JsonRpcRequest r && ProtocolRules.opensSession(r)) {
            if (!legacyVersionHeaderOk(headers, exchange)) {
                return;
            }
            String principal = principal(headers, exchange);
            SessionManager.Opened opened = sessions.create(principal, ClientShares.client(principal, exchange));
            if (opened.session() == null) {
                if (opened.shareUsed()) {
                    shareUsed(exchange, r.id(), "sessions");
                } else {
                    serverFull(exchange, r.id(), "sessions");
                }
                return;
            }
            Session session = opened.session();
            session.caller(AuthCaller.of(exchange, auth));
            exchange.header(SESSION_ID, session.id);
            exchange.requestId(r.id());
            session.register(r.id(), exchange);
            session.channel().receive(r);
            if (session.channel().negotiatedVersion() == null) {
                try {
                    sessions.remove(session, null);
                } catch (StoreUnavailableException e) {
                    // nothing was stored for a session that never opened
                }
            } else if (server.observer().enabled()) {
                session.observation = server.observer().session(exchange.transport(),
                        session.channel().negotiatedVersion().id(), System.nanoTime());
            }
            return;
        }
        if (isModern(headers, message)) {
            modern(headers, message, exchange);
            return;
        }
        RequestId id = message instanceof JsonRpcRequest r ? r.id() : null;
        error(exchange, HttpResponseStatus.BAD_REQUEST, id, ErrorCodes.INVALID_REQUEST,
                "Bad Request: Mcp-Session-Id header is required (send initialize first, or a 2026-07-28 request)");
    }

    // ---------------------------------------------------------------- legacy sessions

    private void legacy(Session session, JsonRpcMessage message, HttpExchange exchange) {
        switch (message) {
            case JsonRpcRequest r -> {
                if (r.method().equals(ProtocolRules.INITIALIZE)) {
                    refuse(exchange, r.id(), ProtocolRules.alreadyInitialized());
                    return;
                }
                if (session.hasPost(r.id())) {
                    refuse(exchange, r.id(), ProtocolRules.idInUse(r.id()));
                    return;
                }
                if (!permits(exchange, r)) {
                    return;
                }
                exchange.requestId(r.id());
                session.register(r.id(), exchange);
                session.channel().receive(r);
            }
            case JsonRpcNotification n -> {
                session.channel().receive(n);
                exchange.empty(HttpResponseStatus.ACCEPTED);
                Observations.notification(exchange, n.method(), session.id);
                if (n.method().equals("notifications/cancelled") && n.params() != null) {
                    JsonNode id = n.params().get("requestId");
                    RequestId cancelled = id == null ? null : RequestId.of(id);
                    if (cancelled != null) {
                        session.cancelled(cancelled);
                    }
                }
            }
            case JsonRpcResponse r -> {
                sessions.response(session, r);
                exchange.empty(HttpResponseStatus.ACCEPTED);
                Observations.unobserved(exchange);
            }
        }
    }

    private void batch(HttpHeaders headers, Decoded.Batch batch, HttpExchange exchange) {
        String sessionId = headers.get(SESSION_ID);
        if (sessionId == null) {
            batch(headers, batch, exchange, null);
        } else {
            sessions.find(sessionId, principal(headers, exchange), exchange,
                    session -> batch(headers, batch, exchange, session), () -> storeUnavailable(exchange));
        }
    }

    private void batch(HttpHeaders headers, Decoded.Batch batch, HttpExchange exchange, Session session) {
        ProtocolVersion version = session == null ? null : session.channel().negotiatedVersion();
        if (version == null || !version.allowsBatches()) {
            refuse(exchange, null, ProtocolRules.batchRefused());
            return;
        }
        for (Decoded item : batch.items()) {
            if (item instanceof Decoded.Single s && s.message() instanceof JsonRpcRequest r && !permits(exchange, r)) {
                return;
            }
        }
        session.caller(AuthCaller.of(exchange, auth));
        boolean anyRequest = false;
        for (Decoded item : batch.items()) {
            if (item instanceof Decoded.Single s && s.message() instanceof JsonRpcRequest r) {
                if (session.hasPost(r.id())) {
                    refuse(exchange, r.id(), ProtocolRules.idInUse(r.id()));
                    return;
                }
                session.register(r.id(), exchange);
                anyRequest = true;
            }
        }
        if (server.observer().enabled()) {
            Observations.batch(server.observer(), headers, exchange, principal(headers, exchange));
            Observations.batchMembers(exchange, batch, session.id);
        }
        boolean anyInvalid = batch.items().stream().anyMatch(Decoded.Invalid.class::isInstance);
        if (!anyRequest && anyInvalid) {
            List<JsonRpcMessage> failures = batch.items().stream().filter(Decoded.Invalid.class::isInstance)
                    .map(i -> (JsonRpcMessage) ((Decoded.Invalid) i).failure()).toList();
            exchange.json(HttpResponseStatus.OK, codec.encodeBatch(failures));
            return;
        }
        session.channel().receive(batch);
        if (!anyRequest) {
            exchange.empty(HttpResponseStatus.ACCEPTED);
        }
    }

    /**
     * Serves a request with its session, on the request's event loop once the session is found (a shared store may
     * answer later); when it does not exist or belongs to another principal, an error is sent instead.
     */
    private void session(String sessionId, HttpHeaders headers, HttpExchange exchange,
            java.util.function.Consumer<Session> then) {
        if (!SessionManager.wellFormed(sessionId)) {
            error(exchange, HttpResponseStatus.BAD_REQUEST, null, ErrorCodes.INVALID_REQUEST,
                    "Bad Request: malformed Mcp-Session-Id");
            return;
        }
        sessions.find(sessionId, principal(headers, exchange), exchange, session -> {
            if (session == null) {
                error(exchange, HttpResponseStatus.NOT_FOUND, null, ErrorCodes.INVALID_REQUEST,
                        "Session not found: it expired or was deleted; initialize a new one");
            } else {
                then.accept(session);
            }
        }, () -> storeUnavailable(exchange));
    }

    private boolean legacyVersionHeaderOk(HttpHeaders headers, HttpExchange exchange) {
        String version = headers.get(HeaderCheck.PROTOCOL_VERSION);
        if (version == null || ProtocolVersion.parse(version).filter(v -> !v.isModern()).isPresent()) {
            return true;
        }
        error(exchange, HttpResponseStatus.BAD_REQUEST, null, ErrorCodes.INVALID_REQUEST,
                "Bad Request: unsupported MCP-Protocol-Version " + version + " (supported: "
                        + ProtocolVersion.supportedIds() + ")");
        return false;
    }

    // ---------------------------------------------------------------- 2026-07-28

    private void modern(HttpHeaders headers, JsonRpcMessage message, HttpExchange exchange) {
        if (message instanceof JsonRpcResponse) {
            error(exchange, HttpResponseStatus.BAD_REQUEST, null, ErrorCodes.INVALID_REQUEST,
                    "Invalid request: clients must not send JSON-RPC responses in 2026-07-28");
            return;
        }
        if (message instanceof JsonRpcNotification n) {
            exchange.empty(HttpResponseStatus.ACCEPTED);
            Observations.notification(exchange, n.method(), null);
            return;
        }
        JsonRpcRequest request = (JsonRpcRequest) message;
        JsonNode metaVersion = ProtocolRules.modernVersion(request);
        String headerVersion = headers.get(HeaderCheck.PROTOCOL_VERSION);
        if (metaVersion == null || !metaVersion.isString()) {
            error(exchange, HttpResponseStatus.BAD_REQUEST, request.id(), ErrorCodes.INVALID_PARAMS,
                    "Invalid params: _meta \"" + McpMeta.PROTOCOL_VERSION + "\" is required");
            return;
        }
        if (headerVersion == null || !headerVersion.strip().equals(metaVersion.stringValue())) {
            error(exchange, HttpResponseStatus.BAD_REQUEST, request.id(), ErrorCodes.HEADER_MISMATCH,
                    headerVersion == null ? "Header mismatch: MCP-Protocol-Version header is required"
                            : "Header mismatch: MCP-Protocol-Version header value '" + headerVersion
                                    + "' does not match body value '" + metaVersion.stringValue() + "'");
            return;
        }
        if (ProtocolVersion.parse(metaVersion.stringValue()).filter(ProtocolVersion::isModern).isPresent()) {
            String mismatch = headerCheck.mismatch(headers, request, server);
            if (mismatch != null) {
                error(exchange, HttpResponseStatus.BAD_REQUEST, request.id(), ErrorCodes.HEADER_MISMATCH, mismatch);
                return;
            }
        }
        if (!permits(exchange, request)) {
            return;
        }
        exchange.requestId(request.id());
        boolean listen = request.method().equals("subscriptions/listen");
        if (listen) {
            if (!admitListen(headers, exchange, request.id())) {
                return;
            }
            exchange.keepStreamAlive(options.sse().keepAlive());
        }
        StatelessRequest served = server.serve(request, new ModernRequest(request.id(), exchange,
                principal(headers, exchange), AuthCaller.of(exchange, auth)));
        if (listen) {
            listens.put(served, exchange.executor());
            exchange.onDone(() -> listens.remove(served));
            if (draining) {
                served.close();
            }
        }
        exchange.onClientGone(served::close);
    }

    /** Routes what the server sends for one stateless request to its HTTP exchange. */
    private final class ModernRequest implements Outbound {
        private final RequestId id;
        private final HttpExchange exchange;
        private final String principal;
        private final dev.tern.server.Caller caller;
        /** The request failed because a shared store cannot answer: its failure goes out as a 503. */
        private volatile boolean storeFailed;

        ModernRequest(RequestId id, HttpExchange exchange, String principal, dev.tern.server.Caller caller) {
            this.id = id;
            this.exchange = exchange;
            this.principal = principal;
            this.caller = caller;
        }

        @Override
        public String principal() {
            return principal;
        }

        @Override
        public dev.tern.server.Caller caller() {
            return caller;
        }

        /** {@code receive} is called on the connection's event loop, which then answers at once. */
        @Override
        public boolean runsNonBlockingHandlersInline() {
            return true;
        }

        @Override
        public boolean timesHandlers() {
            return exchange.timing() != null;
        }

        @Override
        public dev.tern.server.observe.RequestObservation observation(RequestId request) {
            return id.equals(request) ? exchange.takeObservation() : null;
        }

        @Override
        public void served(RequestId request, long handlerStartedNanos, long handlerEndedNanos) {
            ServerTiming timing = exchange.timing();
            if (timing != null && id.equals(request)) {
                timing.handler(handlerStartedNanos, handlerEndedNanos);
            }
        }

        @Override
        public void storeUnavailable(RequestId request) {
            storeFailed = id.equals(request);
        }

        @Override
        public void send(JsonRpcMessage message, RequestId relatedTo) {
            if (message instanceof JsonRpcResponse r && id.equals(r.id())) {
                if (storeFailed && r instanceof JsonRpcFailure && !exchange.streaming()) {
                    McpEndpoint.storeUnavailable(exchange, codec, id);
                } else if (exchange.replyCodec() == null) {
                    exchange.json(status(r), exchange.encode(codec, message));
                } else {
                    exchange.reply(status(r), codec, message);
                }
            } else {
                exchange.event(codec.encode(message), null, false);
            }
        }
    }

    private static HttpResponseStatus status(JsonRpcResponse response) {
        if (!(response instanceof JsonRpcFailure f)) {
            return HttpResponseStatus.OK;
        }
        return switch (f.error().code()) {
            case ErrorCodes.METHOD_NOT_FOUND -> HttpResponseStatus.NOT_FOUND;
            case ErrorCodes.PARSE_ERROR, ErrorCodes.INVALID_REQUEST, ErrorCodes.INVALID_PARAMS,
                    ErrorCodes.HEADER_MISMATCH, ErrorCodes.MISSING_CLIENT_CAPABILITY,
                    ErrorCodes.UNSUPPORTED_PROTOCOL_VERSION -> HttpResponseStatus.BAD_REQUEST;
            default -> HttpResponseStatus.OK;
        };
    }

    /** A request is served statelessly when it carries 2026-07-28 metadata or a non-legacy version header. */
    private static boolean isModern(HttpHeaders headers, JsonRpcMessage message) {
        if (message instanceof JsonRpcRequest r && hasModernMeta(r)) {
            return true;
        }
        return isModernHeader(headers);
    }

    private static boolean isModernHeader(HttpHeaders headers) {
        String version = headers.get(HeaderCheck.PROTOCOL_VERSION);
        return version != null && ProtocolVersion.parse(version.strip()).filter(v -> !v.isModern()).isEmpty();
    }

    private static boolean hasModernMeta(JsonRpcRequest r) {
        return ProtocolRules.isModern(r);
    }

    // ---------------------------------------------------------------- helpers

    /** The request's principal: the one its token stands for, or else the one the application's resolver names. */
    String principal(HttpHeaders headers, HttpExchange exchange) {
        dev.tern.auth.AccessPrincipal authenticated = exchange.principal();
        if (authenticated != null) {
            return authenticated.name();
        }
        PrincipalResolver principals = options.sessions().principals();
        return principals == PrincipalResolver.ANONYMOUS ? null : principals.principal(headers::get);
    }

    /**
     * Whether the request's caller holds the scopes of the tool, resource or prompt it asks for; otherwise it has been
     * answered 403 {@code insufficient_scope}. Always true without authentication.
     */
    boolean permits(HttpExchange exchange, JsonRpcRequest request) {
        return auth == null || auth.permits(exchange, request.id(), server.scopesFor(request));
    }

    /** 503 with Retry-After: the shared store (sessions, tasks) cannot answer now. */
    void storeUnavailable(HttpExchange exchange) {
        storeUnavailable(exchange, codec, null);
    }

    /** As {@link #storeUnavailable(HttpExchange)}, answering the request {@code id}. */
    static void storeUnavailable(HttpExchange exchange, JsonRpcCodec codec, RequestId id) {
        exchange.header(HttpHeaderNames.RETRY_AFTER, 2);
        exchange.json(HttpResponseStatus.SERVICE_UNAVAILABLE, codec.encode(new JsonRpcFailure(id, JsonRpcError.of(
                ErrorCodes.INTERNAL_ERROR, "Service unavailable: the shared store cannot be reached, retry shortly"))));
    }

    /** 503 with Retry-After: every place of a kind ({@code what}) is taken. */
    void serverFull(HttpExchange exchange, RequestId id, String what) {
        shed.increment();
        exchange.header(HttpHeaderNames.RETRY_AFTER, 5);
        error(exchange, HttpResponseStatus.SERVICE_UNAVAILABLE, id, ErrorCodes.INTERNAL_ERROR,
                "Service unavailable: too many " + what);
    }

    /** 429 with Retry-After: the client holds its share of a kind ({@code what}); other clients are still served. */
    void shareUsed(HttpExchange exchange, RequestId id, String what) {
        refusedByShare.increment();
        exchange.header(HttpHeaderNames.RETRY_AFTER, 5);
        error(exchange, HttpResponseStatus.TOO_MANY_REQUESTS, id, ErrorCodes.INTERNAL_ERROR,
                "Too many requests: this client already holds its share of " + options.sessions().maxPerClient() + " "
                        + what + "; end one or retry later");
    }

    private static boolean unknownVersion(String headerVersion) {
        return headerVersion != null && ProtocolVersion.parse(headerVersion.strip()).isEmpty();
    }

    /** 400 with -32022 and the versions this server supports (the 2026-07-28 error; legacy only requires 400). */
    private void unsupportedVersion(HttpExchange exchange, RequestId id, String requested) {
        refuse(exchange, id, ProtocolRules.unsupportedVersion(requested));
    }

    static boolean accepts(HttpHeaders headers, String type) {
        List<String> accept = headers.getAll(HttpHeaderNames.ACCEPT);
        for (String value : accept) {
            // each comma-separated media range, parameters after ';' ignored, compared without allocating
            int start = 0;
            while (start <= value.length()) {
                int comma = value.indexOf(',', start);
                int end = comma < 0 ? value.length() : comma;
                int semicolon = value.indexOf(';', start);
                int mediaEnd = semicolon >= 0 && semicolon < end ? semicolon : end;
                if (mediaRangeMatches(value, start, mediaEnd, type)) {
                    return true;
                }
                start = end + 1;
            }
        }
        return false;
    }

    /** Whether {@code value[from, to)}, trimmed, is {@code type}, its {@code type/*} or {@code *}{@code /*}. */
    private static boolean mediaRangeMatches(String value, int from, int to, String type) {
        while (from < to && Character.isWhitespace(value.charAt(from))) {
            from++;
        }
        while (to > from && Character.isWhitespace(value.charAt(to - 1))) {
            to--;
        }
        int length = to - from;
        if (length == type.length() && value.regionMatches(true, from, type, 0, length)) {
            return true;
        }
        if (length < 3 || value.charAt(to - 1) != '*' || value.charAt(to - 2) != '/') {
            return false;
        }
        int slash = type.indexOf('/');
        return (length == 3 && value.charAt(from) == '*')
                || (length == slash + 2 && value.regionMatches(true, from, type, 0, slash + 1));
    }

    private void methodNotAllowed(HttpExchange exchange) {
        exchange.header(HttpHeaderNames.ALLOW, "POST, GET, DELETE");
        error(exchange, HttpResponseStatus.METHOD_NOT_ALLOWED, null, ErrorCodes.INVALID_REQUEST,
                "Method not allowed: GET and DELETE need an Mcp-Session-Id (2026-07-28 is POST only)");
    }

    /** 400 with the JSON-RPC error of a protocol rule the request broke. */
    private void refuse(HttpExchange exchange, RequestId id, McpException broken) {
        JsonRpcError error = broken.toError();
        exchange.json(HttpResponseStatus.BAD_REQUEST, codec.encode(new JsonRpcFailure(id, error)));
        Observations.refused(exchange, error.code(), error.message());
    }

    void error(HttpExchange exchange, HttpResponseStatus status, RequestId id, int code, String message) {
        exchange.json(status, codec.encode(new JsonRpcFailure(id, JsonRpcError.of(code, message))));
        Observations.refused(exchange, code, message);
    }

    static byte[] health(boolean draining) {
        ObjectNode body = Json.object();
        body.put("status", draining ? "DRAINING" : "UP");
        return Json.mapper().writeValueAsString(body).getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Ends what is still open when the shutdown deadline has passed: sessions and their streams end with a
     * {@code retry} hint, requests still waiting for their answer get 503 with Retry-After.
     */
    void shutdown(Duration retry) {
        for (HttpExchange e : open.snapshot()) {
            if (e.streaming()) {
                e.end(retry);
            } else {
                e.header(HttpHeaderNames.RETRY_AFTER, Math.max(1, retry.toSeconds()));
                error(e, HttpResponseStatus.SERVICE_UNAVAILABLE, e.requestId(), ErrorCodes.INTERNAL_ERROR,
                        "Service unavailable: the server shut down before the request finished");
            }
        }
        sessions.closeAll(retry);
        legacySse.closeAll(retry);
    }
}
