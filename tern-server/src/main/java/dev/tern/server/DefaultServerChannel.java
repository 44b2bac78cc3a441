package dev.tern.server;

import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import dev.tern.protocol.Decoded;
import dev.tern.protocol.Json;
import dev.tern.protocol.JsonRpcError;
import dev.tern.protocol.JsonRpcFailure;
import dev.tern.protocol.JsonRpcMessage;
import dev.tern.protocol.JsonRpcNotification;
import dev.tern.protocol.JsonRpcRequest;
import dev.tern.protocol.JsonRpcResponse;
import dev.tern.protocol.McpException;
import dev.tern.protocol.PendingRequests;
import dev.tern.protocol.ProtocolRules;
import dev.tern.protocol.ProtocolVersion;
import dev.tern.protocol.RequestId;
import dev.tern.protocol.model.Implementation;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Serves one client connection (a stdio pipe, a legacy HTTP session) in both eras: 2026-07-28 requests as they come,
 * and the {@link LegacySession} an {@code initialize} opens, with its requests to the client and its batches. Keeps
 * the requests in flight on the connection, so the client can cancel them by id and a close can end them.
 */
final class DefaultServerChannel implements ServerChannel, RequestHost {
    private static final System.Logger LOG = System.getLogger("dev.tern.server");

    private final McpServer server;
    private final Outbound outbound;
    private final PendingRequests pending;
    private final Map<RequestId, Exchange> inFlight = new ConcurrentHashMap<>();
    /** The listens opened on this connection, by request id; the server's {@link Listens} notifies them. */
    private final Map<RequestId, Listens.Listen> listens = new ConcurrentHashMap<>();
    /** Threads in {@link #awaitIdle}, which waits on {@code inFlight}'s monitor; a request's end notifies only then. */
    private final AtomicInteger idleWaiters = new AtomicInteger();

    /** The legacy session, set by {@code initialize}. */
    private volatile LegacySession session;
    /** Who owns the legacy tasks this channel starts; made on first use. */
    private String ownerKey;
    /** Set by the first {@link #close()}: closing answers the listens, and a transport may close on that answer. */
    private volatile boolean closing;
    private volatile boolean closed;

    DefaultServerChannel(McpServer server, Outbound outbound) {
        this.server = server;
        this.outbound = outbound;
        this.pending = new PendingRequests(server.scheduler(), server.requestIdPrefix());
    }

    /**
     * Who owns the legacy tasks this channel starts: its session, or this channel alone when it has none. A session is
     * named by a digest of its id, because the id is a credential and task records may sit in a shared store.
     */
    synchronized String ownerKey() {
        if (ownerKey == null) {
            String sessionId = outbound.sessionId();
            ownerKey = sessionId == null ? UUID.randomUUID().toString() : "session:" + sha256(sessionId);
        }
        return ownerKey;
    }

    private static String sha256(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /** Whether {@link #ownerKey()} was ever asked for, i.e. whether this channel can own a task. */
    synchronized boolean hasOwnerKey() {
        return ownerKey != null;
    }

    PendingRequests pending() {
        return pending;
    }

    @Override
    public void send(JsonRpcMessage message, RequestId relatedTo) {
        if (!closed) {
            outbound.send(message, relatedTo);
        }
    }

    @Override
    public Outbound outbound() {
        return outbound;
    }

    @Override
    public ProtocolVersion negotiatedVersion() {
        return legacyVersion();
    }

    /** The negotiated legacy version, or {@code null} before {@code initialize}. */
    ProtocolVersion legacyVersion() {
        LegacySession s = session;
        return s == null ? null : s.version;
    }

    @Override
    public void receive(Decoded decoded) {
        switch (decoded) {
            case Decoded.Single s -> receive(s.message());
            case Decoded.Invalid i -> {
                observeInvalid(i.failure().error());
                send(i.failure(), null);
            }
            case Decoded.Ignored ignored -> {
            }
            case Decoded.Batch b -> receiveBatch(b);
        }
    }

    private void observeInvalid(JsonRpcError error) {
        if (server.observer().enabled()) {
            Observed.invalid(outbound, error);
        }
    }

    @Override
    public void receive(JsonRpcMessage message) {
        if (closing) {
            return;
        }
        switch (message) {
            case JsonRpcRequest r -> handleRequest(r, this::respond);
            case JsonRpcNotification n -> handleNotification(n);
            case JsonRpcResponse r -> {
                if (!pending.complete(r)) {
                    LOG.log(Level.DEBUG, "Dropped a response to unknown request {0}", r.id());
                }
            }
        }
    }

    private void respond(JsonRpcResponse response) {
        send(response, response.id());
    }

    private void receiveBatch(Decoded.Batch batch) {
        LegacySession s = session;
        if (s == null || !s.version.allowsBatches()) {
            JsonRpcError refused = ProtocolRules.batchRefused().toError();
            observeInvalid(refused);
            send(new JsonRpcFailure(null, refused), null);
            return;
        }
        List<Decoded.Single> requests = new ArrayList<>();
        List<JsonRpcResponse> responses = new ArrayList<>();
        for (Decoded item : batch.items()) {
            switch (item) {
                case Decoded.Single single when single.message() instanceof JsonRpcRequest r -> {
                    if (r.method().equals(ProtocolRules.INITIALIZE)) {
                        responses.add(refusal(r, ProtocolRules.initializeInBatch().toError()));
                    } else {
                        requests.add(single);
                    }
                }
                case Decoded.Single single -> receive(single.message());
                case Decoded.Invalid invalid -> {
                    observeInvalid(invalid.failure().error());
                    responses.add(invalid.failure());
                }
                case Decoded.Ignored ignored -> {
                }
                case Decoded.Batch nested -> {
                    JsonRpcError error = ProtocolRules.nestedBatch().toError();
                    observeInvalid(error);
                    responses.add(new JsonRpcFailure(null, error));
                }
            }
        }
        if (requests.isEmpty()) {
            if (!responses.isEmpty()) {
                outbound.sendBatch(responses);
            }
            return;
        }
        BatchCollector collector = new BatchCollector(requests.size(), responses);
        for (Decoded.Single single : requests) {
            handleRequest((JsonRpcRequest) single.message(), collector);
        }
    }

    /** Gathers the responses to a batch's requests and sends them as one batch once the last is in. */
    final class BatchCollector implements Consumer<JsonRpcResponse> {
        private int remaining;
        private final List<JsonRpcResponse> responses;

        BatchCollector(int expected, List<JsonRpcResponse> initial) {
            this.remaining = expected;
            this.responses = new ArrayList<>(initial);
        }

        @Override
        public void accept(JsonRpcResponse response) {
            List<JsonRpcResponse> done = null;
            synchronized (this) {
                if (response != null) {
                    responses.add(response);
                }
                if (--remaining == 0) {
                    done = responses;
                }
            }
            if (done != null && !done.isEmpty() && !closed) {
                outbound.sendBatch(done);
            }
        }
    }

    // ---------------------------------------------------------------- requests

    private void handleRequest(JsonRpcRequest request, Consumer<JsonRpcResponse> responder) {
        Exchange exchange;
        try {
            exchange = open(request, responder);
        } catch (McpException e) {
            responder.accept(refusal(request, e.toError()));
            return;
        }
        Methods.Method method = Methods.find(exchange.version.isModern(), request.method());
        if (method == null) {
            responder.accept(refusal(request, exchange.version, McpException.methodNotFound(request.method()).toError()));
            return;
        }
        if (listens.containsKey(request.id()) || inFlight.putIfAbsent(request.id(), exchange) != null) {
            responder.accept(refusal(request, exchange.version, ProtocolRules.idInUse(request.id()).toError()));
            return;
        }
        server.runner().dispatch(exchange, method);
    }

    /** The response refusing a request before it runs, observed as such. */
    private JsonRpcFailure refusal(JsonRpcRequest request, JsonRpcError error) {
        return refusal(request, legacyVersion(), error);
    }

    private JsonRpcFailure refusal(JsonRpcRequest request, ProtocolVersion version, JsonRpcError error) {
        if (server.observer().enabled()) {
            Observed.refused(outbound, request, version, error);
        }
        return new JsonRpcFailure(request.id(), error);
    }

    /** Decides the era of a request and checks what it must carry. */
    private Exchange open(JsonRpcRequest request, Consumer<JsonRpcResponse> responder) {
        JsonNode modernVersion = ProtocolRules.modernVersion(request);
        LegacySession s = session;
        boolean initialize = request.method().equals(ProtocolRules.INITIALIZE);
        if (modernVersion != null && (s == null || !initialize)) {
            return server.runner().openModern(request, modernVersion, this, this, responder);
        }
        if (s != null) {
            return new Exchange(server, this, this, request, s.version, s.capabilities, s.clientInfo, s.logLevel(),
                    responder);
        }
        if (initialize || request.method().equals("ping")) {
            return new Exchange(server, this, this, request, ProtocolVersion.LATEST_LEGACY, null, null, null, responder);
        }
        throw ProtocolRules.notInitialized();
    }

    @Override
    public void ended(Exchange exchange) {
        inFlight.remove(exchange.request.id(), exchange);
    }

    /** Wakes {@link #awaitIdle} once the response is out, so a transport that stops on idle has written it. */
    @Override
    public void answered() {
        if (idleWaiters.get() > 0) {
            synchronized (inFlight) {
                inFlight.notifyAll();
            }
        }
    }

    @Override
    public boolean listening(Listens.Listen listen) {
        // Under the lock close() takes to end the listens: a listen is either seen by close() or sees closing.
        synchronized (listens) {
            if (closing) {
                return false;
            }
            listens.put(listen.id, listen);
            return true;
        }
    }

    // ---------------------------------------------------------------- lifecycle methods

    /** {@code initialize}: opens the legacy session. */
    ObjectNode initialize(Exchange exchange) {
        synchronized (this) {
            if (session != null) {
                throw ProtocolRules.alreadyInitialized();
            }
            ObjectNode params = exchange.params;
            JsonNode requested = params.get("protocolVersion");
            if (requested == null || !requested.isString()) {
                throw McpException.invalidParams("Invalid params: protocolVersion is required");
            }
            JsonNode caps = params.get("capabilities");
            Implementation clientInfo = null;
            JsonNode info = params.get("clientInfo");
            if (info != null && info.isObject()) {
                try {
                    clientInfo = Json.mapper().treeToValue(info, Implementation.class);
                } catch (JacksonException e) {
                    throw McpException.invalidParams("Invalid params: clientInfo is malformed");
                }
            }
            ProtocolVersion version = ProtocolVersion.negotiateLegacy(requested.stringValue());
            LegacySession opened = new LegacySession(server, this, version,
                    caps instanceof ObjectNode o ? o : Json.object(), clientInfo);
            session = opened;
            try {
                outbound.sessionStateChanged();
            } catch (RuntimeException e) {
                session = null;
                throw e;
            }
            ObjectNode result = Json.object();
            result.put("protocolVersion", version.id());
            result.set("capabilities", server.capabilities(version));
            result.set("serverInfo", Json.mapper().valueToTree(server.info()));
            if (server.instructions() != null) {
                result.put("instructions", server.instructions());
            }
            return result;
        }
    }

    // ---------------------------------------------------------------- notifications

    private void handleNotification(JsonRpcNotification n) {
        if (server.observer().enabled()) {
            Observed.notification(outbound, n.method(), legacyVersion());
        }
        switch (n.method()) {
            case "notifications/cancelled" -> {
                JsonNode id = n.params() == null ? null : n.params().get("requestId");
                RequestId requestId = id == null ? null : RequestId.of(id);
                if (requestId == null) {
                    return;
                }
                String reason = n.params().path("reason").asString("cancelled by the client");
                Listens.Listen listen = listens.remove(requestId);
                if (listen != null) {
                    listen.drop();
                    return;
                }
                Exchange exchange = inFlight.get(requestId);
                if (exchange != null && !exchange.request.method().equals(ProtocolRules.INITIALIZE)) {
                    exchange.suppressed = true;
                    RequestRunner.cancel(exchange, reason);
                }
            }
            case "notifications/initialized", "notifications/roots/list_changed", "notifications/progress" -> {
            }
            default -> LOG.log(Level.DEBUG, "Ignored notification {0}", n.method());
        }
    }

    void cancelClientRequest(RequestId outgoing, RequestId relatedTo, String reason) {
        ObjectNode p = Json.object();
        switch (outgoing) {
            case RequestId.NumberId n -> p.put("requestId", n.value());
            case RequestId.StringId s -> p.put("requestId", s.value());
        }
        p.put("reason", reason);
        send(new JsonRpcNotification("notifications/cancelled", p), relatedTo);
    }

    // ---------------------------------------------------------------- server-side events

    /** The legacy session, or {@code null} before {@code initialize}. */
    LegacySession session() {
        return session;
    }

    @Override
    public LegacySessionState legacyState() {
        LegacySession s = session;
        return s == null ? null : s.state();
    }

    @Override
    public void restore(LegacySessionState state) {
        synchronized (this) {
            LegacySession s = session;
            if (s == null) {
                session = LegacySession.restored(server, this, state);
            } else if (s.version == state.version()) {
                s.update(state);
            } else {
                throw new IllegalStateException("a session's revision cannot change");
            }
        }
    }

    @Override
    public boolean awaits(dev.tern.protocol.RequestId id) {
        return pending.awaits(id);
    }

    void listChanged(FeatureRegistry.Kind kind) {
        LegacySession s = session;
        if (s != null) {
            s.listChanged(kind);
        }
    }

    void resourceUpdated(String uri) {
        LegacySession s = session;
        if (s != null) {
            s.resourceUpdated(uri);
        }
    }

    // ---------------------------------------------------------------- lifecycle

    @Override
    public int inFlight() {
        return inFlight.size();
    }

    @Override
    public boolean awaitIdle(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        idleWaiters.incrementAndGet();
        try {
            synchronized (inFlight) {
                while (!inFlight.isEmpty()) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        return false;
                    }
                    TimeUnit.NANOSECONDS.timedWait(inFlight, left);
                }
            }
        } finally {
            idleWaiters.decrementAndGet();
        }
        return true;
    }

    @Override
    public void close() {
        synchronized (listens) {
            if (closing) {
                return;
            }
            closing = true;
            for (Listens.Listen l : listens.values()) {
                l.end();
            }
            listens.clear();
        }
        closed = true;
        for (Exchange exchange : inFlight.values()) {
            exchange.suppressed = true;
            RequestRunner.cancel(exchange, "connection closed");
        }
        if (pending.size() > 0) {
            pending.failAll(new CancellationException("connection closed"));
        }
        server.tasks().ownerGone(this);
        server.detach(this);
    }
}
