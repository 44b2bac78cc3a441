package dev.tern.server;

import java.lang.System.Logger.Level;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import dev.tern.protocol.Decoded;
import dev.tern.protocol.ErrorCodes;
import dev.tern.protocol.Json;
import dev.tern.protocol.JsonRpcError;
import dev.tern.protocol.JsonRpcFailure;
import dev.tern.protocol.JsonRpcMessage;
import dev.tern.protocol.JsonRpcNotification;
import dev.tern.protocol.JsonRpcRequest;
import dev.tern.protocol.JsonRpcResponse;
import dev.tern.protocol.JsonRpcResult;
import dev.tern.protocol.McpException;
import dev.tern.protocol.McpMeta;
import dev.tern.protocol.PendingRequests;
import dev.tern.protocol.ProtocolRules;
import dev.tern.protocol.ProtocolVersion;
import dev.tern.protocol.RequestId;
import dev.tern.protocol.model.Implementation;
import dev.tern.protocol.model.LoggingLevel;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Serves one client connection in both eras. Cheap requests (ping, lists, discovery) are answered on the calling
 * thread; tools, reads, prompts and completions run on virtual threads with a deadline, but for calls of
 * handlers that promised not to block ({@link ToolSpec#nonBlocking()}) where the transport allows them on the calling
 * thread.
 */
final class DefaultServerChannel implements ServerChannel {
    private static final System.Logger LOG = System.getLogger("dev.tern.server");
    private static final AtomicLong ERROR_REFERENCE = new AtomicLong();
    private static final VarHandle CLOSING;
    private static final VarHandle CHANGED_KINDS;
    private static final VarHandle IDLE_WAITERS;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            CLOSING = lookup.findVarHandle(DefaultServerChannel.class, "closing", boolean.class);
            CHANGED_KINDS = lookup.findVarHandle(DefaultServerChannel.class, "changedKinds", int.class);
            IDLE_WAITERS = lookup.findVarHandle(DefaultServerChannel.class, "idleWaiters", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final McpServer server;
    private final Outbound outbound;
    /** Made on first use: a stateless request's channel sends the client no request of its own. */
    private volatile PendingRequests pending;
    private final Map<RequestId, Exchange> inFlight = new ConcurrentHashMap<>();
    private final Map<RequestId, Listen> listens = new ConcurrentHashMap<>();
    /** Made by the first {@code resources/subscribe}: most channels (every stateless request has one) never subscribe. */
    private volatile Set<String> resourceSubscriptions;
    /**
     * The kinds of feature lists changed since the last notification, a bit each ({@code 1 << ordinal}); the change
     * that sets the first bit schedules the notification. Fields rather than objects: every stateless request has a
     * channel, which rarely sees a change.
     */
    private volatile int changedKinds;
    /** Threads in {@link #awaitIdle}, which waits on {@code inFlight}'s monitor; a request's end notifies only then. */
    private volatile int idleWaiters;

    /** The legacy session, set by {@code initialize}. */
    private volatile LegacySession session;
    /** Made on first use: most channels (every stateless request has one) never own a task. */
    private volatile String ownerKey;
    /** Set by the first {@link #close()}: closing answers the listens, and a transport may close on that answer. */
    private volatile boolean closing;
    private volatile boolean closed;

    private record LegacySession(ProtocolVersion version, ObjectNode capabilities, Implementation clientInfo,
            LoggingLevel logLevel) {
        LegacySession withLogLevel(LoggingLevel level) {
            return new LegacySession(version, capabilities, clientInfo, level);
        }
    }

    /** A 2026-07-28 {@code subscriptions/listen} stream. */
    private record Listen(RequestId id, boolean tools, boolean prompts, boolean resources, Set<String> uris) {
    }

    DefaultServerChannel(McpServer server, Outbound outbound) {
        this.server = server;
        this.outbound = outbound;
    }

    McpServer server() {
        return server;
    }

    /** Who owns the legacy tasks this channel starts. */
    String ownerKey() {
        String key = ownerKey;
        if (key == null) {
            synchronized (this) {
                key = ownerKey;
                if (key == null) {
                    key = java.util.UUID.randomUUID().toString();
                    ownerKey = key;
                }
            }
        }
        return key;
    }

    /** Whether {@link #ownerKey()} was ever asked for, i.e. whether this channel can own a task. */
    boolean hasOwnerKey() {
        return ownerKey != null;
    }

    PendingRequests pending() {
        PendingRequests p = pending;
        if (p == null) {
            synchronized (this) {
                p = pending;
                if (p == null) {
                    p = new PendingRequests(server.scheduler());
                    pending = p;
                }
            }
        }
        return p;
    }

    void send(JsonRpcMessage message, RequestId relatedTo) {
        if (!closed) {
            outbound.send(message, relatedTo);
        }
    }

    @Override
    public ProtocolVersion negotiatedVersion() {
        return legacyVersion();
    }

    /** The negotiated legacy version, or {@code null} before {@code initialize}. */
    ProtocolVersion legacyVersion() {
        LegacySession s = session;
        return s == null ? null : s.version();
    }

    @Override
    public void receive(Decoded decoded) {
        switch (decoded) {
            case Decoded.Single s -> receive(s.message());
            case Decoded.Invalid i -> send(i.failure(), null);
            case Decoded.Ignored ignored -> {
            }
            case Decoded.Batch b -> receiveBatch(b);
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
                PendingRequests p = pending;
                if (p == null || !p.complete(r)) {
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
        if (s == null || !s.version().allowsBatches()) {
            send(new JsonRpcFailure(null, ProtocolRules.batchRefused().toError()), null);
            return;
        }
        List<Decoded.Single> requests = new ArrayList<>();
        List<JsonRpcResponse> responses = new ArrayList<>();
        for (Decoded item : batch.items()) {
            switch (item) {
                case Decoded.Single single when single.message() instanceof JsonRpcRequest r -> {
                    if (r.method().equals(ProtocolRules.INITIALIZE)) {
                        responses.add(new JsonRpcFailure(r.id(), ProtocolRules.initializeInBatch().toError()));
                    } else {
                        requests.add(single);
                    }
                }
                case Decoded.Single single -> receive(single.message());
                case Decoded.Invalid invalid -> responses.add(invalid.failure());
                case Decoded.Ignored ignored -> {
                }
                case Decoded.Batch nested -> responses.add(new JsonRpcFailure(null, ProtocolRules.nestedBatch().toError()));
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

    private final class BatchCollector implements Consumer<JsonRpcResponse> {
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
            responder.accept(new JsonRpcFailure(request.id(), e.toError()));
            return;
        }
        Methods.Method method = Methods.find(exchange.version.isModern(), request.method());
        if (method == null) {
            responder.accept(new JsonRpcFailure(request.id(), McpException.methodNotFound(request.method()).toError()));
            return;
        }
        if (listens.containsKey(request.id()) || inFlight.putIfAbsent(request.id(), exchange) != null) {
            responder.accept(new JsonRpcFailure(request.id(), ProtocolRules.idInUse(request.id()).toError()));
            return;
        }
        if (method.inline()) {
            run(exchange, method);
        } else if (outbound.runsNonBlockingHandlersInline() && Methods.callsNonBlockingHandler(exchange, method)) {
            exchange.inline = true;
            run(exchange, method);
        } else {
            HandlerDeadlines.Armed deadline = server.deadlines().arm(() -> {
                exchange.timedOut = true;
                cancel(exchange, "timed out");
            });
            Thread.ofVirtual().name("tern-request-", 0).start(() -> {
                exchange.thread = Thread.currentThread();
                try {
                    if (!exchange.cancellation.isCancelled()) {
                        run(exchange, method);
                    } else {
                        ObjectNode expired = exchange.timedOut ? Methods.expiredBeforeStart(exchange, method) : null;
                        if (expired != null) {
                            complete(exchange, new JsonRpcResult(exchange.request.id(), decorate(exchange, expired)));
                        } else {
                            finish(exchange);
                        }
                    }
                } finally {
                    deadline.disarm();
                    exchange.thread = null;
                    Thread.interrupted();
                }
            });
        }
    }

    /**
     * The common shape of client info, read without data binding (it comes with every 2026-07-28 request): an object
     * of string members only. {@code null} for anything else, which data binding then reads or refuses.
     */
    private static Implementation plainImplementation(JsonNode info) {
        if (!(info instanceof ObjectNode object) || object.has("icons")) {
            return null;
        }
        String[] values = new String[5];
        for (var member : object.properties()) {
            int slot = switch (member.getKey()) {
                case "name" -> 0;
                case "title" -> 1;
                case "version" -> 2;
                case "description" -> 3;
                case "websiteUrl" -> 4;
                default -> -1;
            };
            if (slot < 0) {
                continue;
            }
            JsonNode value = member.getValue();
            if (value.isString()) {
                values[slot] = value.stringValue();
            } else if (!value.isNull()) {
                return null;
            }
        }
        return new Implementation(values[0], values[1], values[2], values[3], null, values[4]);
    }

    /** Decides the era of a request and checks what it must carry. */
    private Exchange open(JsonRpcRequest request, Consumer<JsonRpcResponse> responder) {
        ObjectNode params = request.params();
        JsonNode meta = params == null ? null : params.get(McpMeta.KEY);
        JsonNode modernVersion = meta == null ? null : meta.get(McpMeta.PROTOCOL_VERSION);
        LegacySession s = session;
        if (modernVersion != null && (s == null || !request.method().equals(ProtocolRules.INITIALIZE))) {
            return openModern(request, meta, modernVersion, responder);
        }
        if (request.method().equals(ProtocolRules.INITIALIZE) || s != null) {
            ProtocolVersion v = s != null ? s.version() : ProtocolVersion.LATEST_LEGACY;
            return new Exchange(this, request, v, s == null ? null : s.capabilities(), s == null ? null : s.clientInfo(),
                    s == null ? null : s.logLevel(), responder);
        }
        if (request.method().equals("ping")) {
            return new Exchange(this, request, ProtocolVersion.LATEST_LEGACY, null, null, null, responder);
        }
        throw ProtocolRules.notInitialized();
    }

    private Exchange openModern(JsonRpcRequest request, JsonNode meta, JsonNode versionNode,
            Consumer<JsonRpcResponse> responder) {
        String requested = versionNode.isString() ? versionNode.stringValue() : versionNode.toString();
        ProtocolVersion version = ProtocolVersion.parse(requested).filter(ProtocolVersion::isModern).orElse(null);
        if (version == null) {
            throw ProtocolRules.unsupportedVersion(requested);
        }
        JsonNode caps = meta.get(McpMeta.CLIENT_CAPABILITIES);
        if (!(caps instanceof ObjectNode capabilities)) {
            throw McpException.invalidParams("Invalid params: _meta \"" + McpMeta.CLIENT_CAPABILITIES
                    + "\" is required and must be an object");
        }
        Implementation clientInfo = null;
        JsonNode info = meta.get(McpMeta.CLIENT_INFO);
        if (info != null) {
            clientInfo = plainImplementation(info);
            if (clientInfo == null) {
                try {
                    clientInfo = Json.mapper().treeToValue(info, Implementation.class);
                } catch (JacksonException e) {
                    throw McpException.invalidParams("Invalid params: _meta \"" + McpMeta.CLIENT_INFO + "\" is malformed");
                }
            }
        }
        LoggingLevel level = null;
        JsonNode levelNode = meta.get(McpMeta.LOG_LEVEL);
        if (levelNode != null) {
            level = LoggingLevel.parse(levelNode.isString() ? levelNode.stringValue() : "")
                    .orElseThrow(() -> McpException.invalidParams("Invalid params: unknown log level " + levelNode));
        }
        return new Exchange(this, request, version, capabilities, clientInfo, level, responder);
    }

    private void run(Exchange exchange, Methods.Method method) {
        JsonRpcResponse response;
        boolean timed = outbound.timesHandlers();
        if (timed) {
            exchange.handlerStarted = System.nanoTime();
        }
        try {
            ObjectNode result = method.handle(exchange);
            response = result == null ? null : new JsonRpcResult(exchange.request.id(), decorate(exchange, result));
        } catch (InputRequiredSignal signal) {
            response = new JsonRpcResult(exchange.request.id(), inputRequired(exchange, signal));
        } catch (McpException e) {
            response = new JsonRpcFailure(exchange.request.id(), e.toError());
        } catch (Throwable t) {
            response = failure(exchange, t);
        }
        if (timed) {
            exchange.handlerEnded = System.nanoTime();
        }
        if (response != null || method != Methods.LISTEN) {
            complete(exchange, response);
        }
    }

    private JsonRpcResponse failure(Exchange exchange, Throwable t) {
        if (exchange.timedOut) {
            return new JsonRpcFailure(exchange.request.id(), JsonRpcError.of(ErrorCodes.INTERNAL_ERROR,
                    "Request timed out after " + server.config().handlerTimeout()));
        }
        if (exchange.cancellation.isCancelled() || t instanceof CancellationException) {
            return new JsonRpcFailure(exchange.request.id(), JsonRpcError.of(ErrorCodes.INTERNAL_ERROR, "Request cancelled"));
        }
        if (t instanceof Error e && !(t instanceof StackOverflowError) && !(t instanceof OutOfMemoryError)) {
            LOG.log(Level.ERROR, "Fatal error serving " + exchange.request.method(), e);
        }
        long reference = ERROR_REFERENCE.incrementAndGet();
        LOG.log(Level.WARNING, "Request " + exchange.request.method() + " failed (reference " + reference + ")", t);
        return new JsonRpcFailure(exchange.request.id(), JsonRpcError.of(ErrorCodes.INTERNAL_ERROR,
                "Internal error (reference " + reference + ")"));
    }

    private void complete(Exchange exchange, JsonRpcResponse response) {
        exchange.finish();
        inFlight.remove(exchange.request.id(), exchange);
        if (!exchange.suppressed) {
            if (response != null && exchange.handlerStarted != 0) {
                outbound.served(exchange.request.id(), exchange.handlerStarted, exchange.handlerEnded);
            }
            exchange.responder.accept(response);
        } else if (exchange.responder instanceof BatchCollector) {
            exchange.responder.accept(null);
        }
        if (idleWaiters > 0) {
            synchronized (inFlight) {
                inFlight.notifyAll();
            }
        }
    }

    private void finish(Exchange exchange) {
        complete(exchange, new JsonRpcFailure(exchange.request.id(),
                JsonRpcError.of(ErrorCodes.INTERNAL_ERROR, "Request cancelled")));
    }

    /** Adds what 2026-07-28 results carry: resultType, cache hints, serverInfo. */
    private ObjectNode decorate(Exchange exchange, ObjectNode result) {
        if (!exchange.modern()) {
            return result;
        }
        if (!result.has("resultType")) {
            result.put("resultType", "complete");
        }
        if (Methods.isCacheable(exchange.request.method()) && !result.has("ttlMs")) {
            boolean read = exchange.request.method().equals("resources/read");
            boolean retry = exchange.params.has("inputResponses") || exchange.params.has("requestState");
            result.put("ttlMs", read || retry ? server.config().readTtlMs() : server.config().listTtlMs());
            result.put("cacheScope", server.config().cacheScope());
        }
        JsonNode meta = result.get(McpMeta.KEY);
        if (meta == null) {
            result.set(McpMeta.KEY, server.serverInfoMeta());
        } else if (meta instanceof ObjectNode m && !m.has(McpMeta.SERVER_INFO)) {
            m.set(McpMeta.SERVER_INFO, server.serverInfoMeta().get(McpMeta.SERVER_INFO));
        }
        return result;
    }

    private ObjectNode inputRequired(Exchange exchange, InputRequiredSignal signal) {
        ObjectNode result = Json.object();
        result.put("resultType", "input_required");
        result.set(McpMeta.KEY, server.serverInfoMeta());
        ObjectNode requests = result.putObject("inputRequests");
        signal.inputRequests.forEach(requests::set);
        ObjectNode answers = exchange.answers != null ? exchange.answers : Json.object();
        String binding = RequestStateSealer.binding(exchange.request.method(), exchange.params);
        result.put("requestState", server.sealer().seal(binding, answers));
        return result;
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
            session = new LegacySession(version, caps instanceof ObjectNode o ? o : Json.object(), clientInfo,
                    server.config().defaultLogLevel());
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

    ObjectNode setLogLevel(Exchange exchange) {
        JsonNode level = exchange.params.get("level");
        LoggingLevel parsed = LoggingLevel.parse(level != null && level.isString() ? level.stringValue() : null)
                .orElseThrow(() -> McpException.invalidParams("Invalid params: unknown log level " + level));
        synchronized (this) {
            session = session.withLogLevel(parsed);
        }
        return Json.object();
    }

    ObjectNode subscribe(Exchange exchange, boolean add) {
        String uri = Methods.requireString(exchange.params, "uri");
        Set<String> subscriptions = resourceSubscriptions;
        if (add) {
            if (subscriptions == null) {
                synchronized (this) {
                    subscriptions = resourceSubscriptions;
                    if (subscriptions == null) {
                        subscriptions = ConcurrentHashMap.newKeySet();
                        resourceSubscriptions = subscriptions;
                    }
                }
            }
            if (subscriptions.size() >= 10_000 && !subscriptions.contains(uri)) {
                throw McpException.invalidRequest("Invalid request: too many resource subscriptions");
            }
            subscriptions.add(uri);
        } else if (subscriptions != null) {
            subscriptions.remove(uri);
        }
        return Json.object();
    }

    /** {@code subscriptions/listen}: acknowledges and keeps the request open until it is cancelled. */
    ObjectNode listen(Exchange exchange) {
        JsonNode filter = exchange.params.path("notifications");
        ObjectNode honoured = Json.object();
        boolean tools = filter.path("toolsListChanged").asBoolean(false);
        boolean prompts = filter.path("promptsListChanged").asBoolean(false);
        boolean resources = filter.path("resourcesListChanged").asBoolean(false);
        Set<String> uris = Set.of();
        if (tools) {
            honoured.put("toolsListChanged", true);
        }
        if (prompts) {
            honoured.put("promptsListChanged", true);
        }
        if (resources) {
            honoured.put("resourcesListChanged", true);
        }
        JsonNode wanted = filter.get("resourceSubscriptions");
        if (wanted != null && wanted.isArray()) {
            ArrayNode accepted = honoured.putArray("resourceSubscriptions");
            Set<String> chosen = new java.util.HashSet<>();
            for (JsonNode uri : wanted) {
                if (uri.isString() && chosen.size() < 10_000 && chosen.add(uri.stringValue())) {
                    accepted.add(uri.stringValue());
                }
            }
            uris = Set.copyOf(chosen);
        }
        RequestId id = exchange.request.id();
        inFlight.remove(id, exchange);
        ObjectNode ack = Json.object();
        ack.set(McpMeta.KEY, subscriptionMeta(id));
        ack.set("notifications", honoured);
        // Under the lock that close() and the notifications take to reach the listens, so the acknowledgement is the
        // listen's first message. Put before closing is read, as close() sets closing before it looks for listens:
        // one of the two sees the other, and a listen close() may have missed is ended here.
        synchronized (listens) {
            listens.put(id, new Listen(id, tools, prompts, resources, uris));
            if (!closing) {
                send(new JsonRpcNotification("notifications/subscriptions/acknowledged", ack), id);
                return null;
            }
            listens.remove(id);
        }
        send(new JsonRpcNotification("notifications/subscriptions/acknowledged", ack), id);
        sendListenEnd(id);
        return null;
    }

    private void sendListenEnd(RequestId id) {
        ObjectNode result = Json.object();
        result.put("resultType", "complete");
        result.set(McpMeta.KEY, subscriptionMeta(id));
        send(new JsonRpcResult(id, result), id);
    }

    private static ObjectNode subscriptionMeta(RequestId id) {
        ObjectNode meta = Json.object();
        switch (id) {
            case RequestId.NumberId n -> meta.put(McpMeta.SUBSCRIPTION_ID, n.value());
            case RequestId.StringId s -> meta.put(McpMeta.SUBSCRIPTION_ID, s.value());
        }
        return meta;
    }

    // ---------------------------------------------------------------- notifications

    private void handleNotification(JsonRpcNotification n) {
        switch (n.method()) {
            case "notifications/cancelled" -> {
                JsonNode id = n.params() == null ? null : n.params().get("requestId");
                RequestId requestId = id == null ? null : RequestId.of(id);
                if (requestId == null) {
                    return;
                }
                String reason = n.params().path("reason").asString("cancelled by the client");
                Listen listen = listens.remove(requestId);
                if (listen != null) {
                    return;
                }
                Exchange exchange = inFlight.get(requestId);
                if (exchange != null && !exchange.request.method().equals(ProtocolRules.INITIALIZE)) {
                    exchange.suppressed = true;
                    cancel(exchange, reason);
                }
            }
            case "notifications/initialized", "notifications/roots/list_changed", "notifications/progress" -> {
            }
            default -> LOG.log(Level.DEBUG, "Ignored notification {0}", n.method());
        }
    }

    private void cancel(Exchange exchange, String reason) {
        if (exchange.cancellation.cancel(reason)) {
            Thread t = exchange.thread;
            if (t != null) {
                t.interrupt();
            }
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

    void listChanged(FeatureRegistry.Kind kind) {
        if ((int) CHANGED_KINDS.getAndBitwiseOr(this, 1 << kind.ordinal()) == 0) {
            server.scheduler().schedule(this::flushListChanged, server.config().listChangedDelay().toNanos(),
                    TimeUnit.NANOSECONDS);
        }
    }

    private void flushListChanged() {
        int changed = (int) CHANGED_KINDS.getAndSet(this, 0);
        for (FeatureRegistry.Kind kind : FeatureRegistry.Kind.values()) {
            if ((changed & (1 << kind.ordinal())) == 0) {
                continue;
            }
            if (session != null) {
                send(new JsonRpcNotification(kind.notification, null), null);
            }
            if (listens.isEmpty()) {
                continue;
            }
            synchronized (listens) {
                for (Listen l : listens.values()) {
                    boolean wanted = switch (kind) {
                        case TOOLS -> l.tools();
                        case PROMPTS -> l.prompts();
                        case RESOURCES -> l.resources();
                    };
                    if (wanted) {
                        ObjectNode p = Json.object();
                        p.set(McpMeta.KEY, subscriptionMeta(l.id()));
                        send(new JsonRpcNotification(kind.notification, p), l.id());
                    }
                }
            }
        }
    }

    void resourceUpdated(String uri) {
        Set<String> subscriptions = resourceSubscriptions;
        if (session != null && subscriptions != null && subscriptions.contains(uri)) {
            ObjectNode p = Json.object();
            p.put("uri", uri);
            send(new JsonRpcNotification("notifications/resources/updated", p), null);
        }
        if (listens.isEmpty()) {
            return;
        }
        synchronized (listens) {
            for (Listen l : listens.values()) {
                if (l.uris().contains(uri)) {
                    ObjectNode p = Json.object();
                    p.set(McpMeta.KEY, subscriptionMeta(l.id()));
                    p.put("uri", uri);
                    send(new JsonRpcNotification("notifications/resources/updated", p), l.id());
                }
            }
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
        IDLE_WAITERS.getAndAdd(this, 1);
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
            IDLE_WAITERS.getAndAdd(this, -1);
        }
        return true;
    }

    @Override
    public void close() {
        if (!CLOSING.compareAndSet(this, false, true)) {
            return;
        }
        if (!listens.isEmpty()) {
            synchronized (listens) {
                for (Listen l : listens.values()) {
                    if (listens.remove(l.id()) != null) {
                        sendListenEnd(l.id());
                    }
                }
            }
        }
        closed = true;
        if (!inFlight.isEmpty()) {
            for (Exchange exchange : inFlight.values()) {
                exchange.suppressed = true;
                cancel(exchange, "connection closed");
            }
        }
        PendingRequests p = pending;
        if (p != null && p.size() > 0) {
            p.failAll(new CancellationException("connection closed"));
        }
        server.tasks().ownerGone(this);
        server.detach(this);
    }

    static Map<String, String> stringMap(JsonNode node, String what) {
        if (node == null || node.isNull()) {
            return Map.of();
        }
        if (!node.isObject()) {
            throw McpException.invalidParams("Invalid params: " + what + " must be an object");
        }
        Map<String, String> map = new java.util.LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : node.properties()) {
            JsonNode v = e.getValue();
            if (!v.isString()) {
                throw McpException.invalidParams("Invalid params: " + what + "." + e.getKey() + " must be a string");
            }
            map.put(e.getKey(), v.stringValue());
        }
        return map;
    }
}
