package dev.tern.server;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.tern.protocol.Json;
import dev.tern.protocol.JsonRpcCodec;
import dev.tern.protocol.Decoded;
import dev.tern.protocol.JsonRpcRequest;
import dev.tern.protocol.JsonRpcResult;
import dev.tern.protocol.McpMeta;
import dev.tern.protocol.ProtocolVersion;
import dev.tern.protocol.model.Implementation;
import dev.tern.protocol.model.LoggingLevel;
import dev.tern.server.observe.McpObserver;

import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import org.jspecify.annotations.Nullable;

/**
 * An MCP server: its features and settings, independent of any transport. A transport {@link #connect}s a
 * {@link ServerChannel} per client connection (a stdio pipe, a legacy HTTP session) and feeds it messages, or hands a
 * 2026-07-28 request that comes on its own (a Streamable HTTP POST) to {@link #serve}. Both protocol eras are served,
 * chosen per request. Thread-safe.
 *
 * <pre>{@code
 * McpServer server = McpServer.builder()
 *         .info("weather", "1.0.0")
 *         .tool(ToolSpec.builder("forecast").description("Forecast for a city")
 *                 .handler(City.class, (ctx, city) -> forecasts.get(city.name()))
 *                 .build())
 *         .build();
 * }</pre>
 */
public final class McpServer implements AutoCloseable {
    /** What {@link #warmUp} sends itself: a 2026-07-28 {@code tools/list}. */
    private static final byte[] WARM_UP_REQUEST = ("{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"tools/list\",\"params\":"
            + "{\"_meta\":{\"" + McpMeta.PROTOCOL_VERSION + "\":\"" + ProtocolVersion.LATEST.id() + "\",\""
            + McpMeta.CLIENT_CAPABILITIES + "\":{}}}}").getBytes(StandardCharsets.US_ASCII);

    private final Implementation info;
    private final String instructions;
    private final ServerConfig config;
    private final FeatureRegistry registry;
    private final ScheduledExecutorService scheduler;
    private final HandlerDeadlines deadlines;
    private final RequestStateSealer sealer;
    /** The open connections (stdio pipes, legacy sessions); a request served on its own has none. */
    private final Set<DefaultServerChannel> channels = ConcurrentHashMap.newKeySet();
    private final RequestRunner runner;
    private final Listens listens;
    private final ObjectNode capabilities;
    private final ObjectNode capabilitiesWithTasks;
    private final ObjectNode modernCapabilities;
    private final Tasks tasks;
    private final ObjectNode serverInfoMeta;
    private final DirectCalls directCalls;
    private final ResultCache results;
    /** Cache policies set at run time for tools, over what the tools declare ({@link #cacheTool}); replaced whole. */
    private volatile java.util.Map<String, CachePolicy> toolCachePolicies = java.util.Map.of();
    private final java.util.concurrent.atomic.AtomicLong featuresRevision = new java.util.concurrent.atomic.AtomicLong();
    private final McpObserver observer;
    private final NotificationBus bus;
    /** Coalesces the list changes published to other nodes as those sent to clients are; null on a single node. */
    private final @Nullable ListChanges publishedChanges;
    /** What the ids of requests to clients start with on this node of a cluster; null on a single node. */
    private final @Nullable String requestIdPrefix;
    private volatile boolean closed;
    private final boolean listOnlyPermitted;

    private McpServer(Builder b) {
        this.observer = b.observer;
        this.info = b.info;
        this.listOnlyPermitted = b.listOnlyPermitted;
        this.instructions = b.instructions;
        this.config = b.config();
        this.registry = b.registry;
        ScheduledThreadPoolExecutor pool = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "tern-scheduler");
            t.setDaemon(true);
            return t;
        });
        pool.setRemoveOnCancelPolicy(true);
        this.scheduler = pool;
        this.deadlines = new HandlerDeadlines(pool, config.handlerTimeout());
        this.sealer = new RequestStateSealer(b.requestStateKeys != null ? b.requestStateKeys
                : java.util.List.of(RequestStateSealer.randomKey()), config.requestStateLifetime(), Clock.systemUTC());
        this.capabilities = buildCapabilities();
        this.capabilitiesWithTasks = capabilities.deepCopy();
        ObjectNode taskCaps = capabilitiesWithTasks.putObject("tasks");
        taskCaps.putObject("list");
        taskCaps.putObject("cancel");
        taskCaps.putObject("requests").putObject("tools").putObject("call");
        this.modernCapabilities = capabilities.deepCopy();
        modernCapabilities.putObject("extensions").putObject(McpMeta.TASKS_EXTENSION);
        this.tasks = new Tasks(this, b.taskStore != null ? b.taskStore : new InMemoryTaskStore(), b.taskQueue);
        this.serverInfoMeta = Json.object();
        serverInfoMeta.set(McpMeta.SERVER_INFO, Json.mapper().valueToTree(info));
        this.runner = new RequestRunner(this);
        this.listens = new Listens(this);
        this.directCalls = new DirectCalls(this);
        this.results = new ResultCache(b.resultCacheMaxBytes, b.cacheTicker, b.cacheSecondLevel);
        this.bus = b.bus;
        this.publishedChanges = bus == NotificationBus.LOCAL ? null
                : new ListChanges(this, kind -> bus.publish(new NotificationBus.ListChanged(kind.list())));
        this.requestIdPrefix = bus == NotificationBus.LOCAL ? null
                : "n" + Long.toHexString(new java.security.SecureRandom().nextLong()) + "-";
        bus.subscribe(this::received);
        tasks.startQueue();
    }

    public static Builder builder() {
        return new Builder();
    }

    public Implementation info() {
        return info;
    }

    /** Opens a channel for one client connection; messages it sends go to {@code outbound}. */
    public ServerChannel connect(Outbound outbound) {
        if (closed) {
            throw new IllegalStateException("server is closed");
        }
        DefaultServerChannel channel = new DefaultServerChannel(this, Objects.requireNonNull(outbound, "outbound"));
        channels.add(channel);
        return channel;
    }

    /**
     * Serves one 2026-07-28 request on its own, without a channel: its response, and the notifications sent while
     * serving it, go to {@code outbound} with the request as {@code relatedTo}. A transport that serves such requests
     * one by one (Streamable HTTP) uses it instead of {@link #connect}; the returned handle cancels the request, or
     * ends the {@code subscriptions/listen} it opened, when the client goes away.
     */
    public StatelessRequest serve(JsonRpcRequest request, Outbound outbound) {
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(outbound, "outbound");
        if (closed) {
            throw new IllegalStateException("server is closed");
        }
        return runner.serve(request, outbound);
    }

    /** Adds or replaces a tool at run time; connected clients are told the list changed. */
    public void addTool(ToolSpec tool) {
        registry.add(tool);
        listChanged(FeatureRegistry.Kind.TOOLS);
    }

    public boolean removeTool(String name) {
        boolean removed = registry.removeTool(name);
        if (removed) {
            listChanged(FeatureRegistry.Kind.TOOLS);
        }
        return removed;
    }

    public void addResource(ResourceSpec resource) {
        registry.add(resource);
        listChanged(FeatureRegistry.Kind.RESOURCES);
    }

    public void addResourceTemplate(ResourceTemplateSpec template) {
        registry.add(template);
        listChanged(FeatureRegistry.Kind.RESOURCES);
    }

    public boolean removeResource(String uriOrTemplate) {
        boolean removed = registry.removeResource(uriOrTemplate);
        if (removed) {
            listChanged(FeatureRegistry.Kind.RESOURCES);
        }
        return removed;
    }

    public void addPrompt(PromptSpec prompt) {
        registry.add(prompt);
        listChanged(FeatureRegistry.Kind.PROMPTS);
    }

    public boolean removePrompt(String name) {
        boolean removed = registry.removePrompt(name);
        if (removed) {
            listChanged(FeatureRegistry.Kind.PROMPTS);
        }
        return removed;
    }

    /**
     * The OAuth scopes a request needs beyond those every request needs: the scopes of the tool it calls, the
     * resource it reads or subscribes to, the prompt it gets ({@link ToolSpec.Builder#scopes}); empty for any other.
     * A transport that authenticates callers refuses the request when the caller's token lacks one.
     */
    public java.util.Set<String> scopesFor(JsonRpcRequest request) {
        return Scopes.needed(registry, Objects.requireNonNull(request, "request"));
    }

    /** Every scope a tool, resource, template or prompt of this server needs, for a resource's metadata. */
    public java.util.Set<String> scopesInUse() {
        java.util.Set<String> all = new java.util.TreeSet<>();
        registry.tools().forEach(t -> all.addAll(t.scopes()));
        registry.resources().forEach(r -> all.addAll(r.scopes()));
        registry.templates().forEach(t -> all.addAll(t.scopes()));
        registry.prompts().forEach(p -> all.addAll(p.scopes()));
        return java.util.Collections.unmodifiableSet(all);
    }

    /** The scopes calling the tool {@code name} needs (empty for an unknown tool). */
    public java.util.Set<String> toolScopes(String name) {
        ToolSpec spec = registry.tool(name);
        return spec == null ? java.util.Set.of() : spec.scopes();
    }

    /** The scopes reading the resource at {@code uri} needs (empty for an unknown resource). */
    public java.util.Set<String> resourceScopes(String uri) {
        return Scopes.resource(registry, uri);
    }

    /** Whether lists leave out what the caller lacks the scopes to use: see {@link Builder#listOnlyPermitted}. */
    boolean listOnlyPermitted() {
        return listOnlyPermitted;
    }

    /** The tool of that name as listed, if there is one. */
    public java.util.Optional<dev.tern.protocol.model.ToolDefinition> findTool(String name) {
        ToolSpec spec = registry.tool(name);
        return spec == null ? java.util.Optional.empty() : java.util.Optional.of(spec.tool());
    }

    /** The tools as listed, in registration order; an immutable snapshot. */
    public java.util.List<dev.tern.protocol.model.ToolDefinition> tools() {
        return registry.tools().stream().map(ToolSpec::tool).toList();
    }

    /**
     * Counts the changes made to tools, resources and prompts since the server was built: anything derived from them
     * (a document describing the tools, a cache) is stale once this differs from the value it was built at.
     */
    public long featuresRevision() {
        return featuresRevision.get();
    }

    /**
     * Calls a tool outside any MCP session, as {@code tools/call} would: the arguments are validated against the
     * tool's input schema and the handler runs on a virtual thread of its own within the handler timeout. The handler
     * sees a 2026-07-28 request from a client without capabilities, so a tool that asks the client for input
     * (elicitation, sampling, roots) ends with {@link CallOutcome.NeedsClient}. A cacheable tool is served from the
     * result cache as its 2026-07-28 {@code tools/call} by the same principal is. Cancelling the returned future
     * cancels the call. The future never completes exceptionally.
     */
    public java.util.concurrent.CompletableFuture<CallOutcome> callTool(String name, @Nullable ObjectNode arguments) {
        Objects.requireNonNull(name, "name");
        return directCalls.callTool(name, arguments == null ? Json.object() : arguments, true, null, null);
    }

    /**
     * As {@link #callTool}, for a caller that only writes the result out (a REST façade): when the tool returned a
     * value, the result's {@code structuredContent} is the {@link Json#rawJson} node holding the JSON the value was
     * serialized to, which every mapper writes as it is, instead of that JSON parsed back into a tree
     * ({@link Json#materialize} parses it). Saves a parse and a second serialization per call.
     */
    public java.util.concurrent.CompletableFuture<CallOutcome> callToolUnparsed(String name,
            @Nullable ObjectNode arguments) {
        return callToolUnparsed(name, arguments, null, null);
    }

    /**
     * As {@link #callToolUnparsed(String, ObjectNode)}, made by {@code principal} (what private cached results are
     * kept under, as {@link Outbound#principal()}; by default the caller's name) whom the handler sees as
     * {@code caller}; both {@code null} for an anonymous call.
     */
    public java.util.concurrent.CompletableFuture<CallOutcome> callToolUnparsed(String name,
            @Nullable ObjectNode arguments, @Nullable String principal, @Nullable Caller caller) {
        Objects.requireNonNull(name, "name");
        return directCalls.callTool(name, arguments == null ? Json.object() : arguments, false, principal, caller);
    }

    /**
     * Reads a resource outside any MCP session, as {@code resources/read} would (static resources first, then the
     * first template that matches), on a virtual thread within the handler timeout. Cancelling the returned future
     * cancels the read. The future never completes exceptionally.
     */
    public java.util.concurrent.CompletableFuture<CallOutcome> readResource(String uri) {
        return readResource(uri, null, null);
    }

    /** As {@link #readResource(String)}, made by {@code principal} as {@code caller} (see {@link #callToolUnparsed}). */
    public java.util.concurrent.CompletableFuture<CallOutcome> readResource(String uri, @Nullable String principal,
            @Nullable Caller caller) {
        return directCalls.readResource(Objects.requireNonNull(uri, "uri"), principal, caller);
    }

    /**
     * Runs once, for no client, what a first request runs: decoding, the dispatch and answer of a 2026-07-28
     * {@code tools/list}, encoding, and a virtual thread. The first client then does not wait for their one-time
     * set-up (the bootstraps of pattern switches, the serializers of the feature records, the virtual-thread
     * scheduler): about 25 ms of its first answer. Calls no tool, resource or prompt handler and sends nothing;
     * does nothing on a closed server. Transports run it on a thread of their own once they listen.
     *
     * @return whether the request was answered with a result (false on a closed server)
     */
    public boolean warmUp() {
        JsonRpcCodec codec = JsonRpcCodec.withDefaults();
        AtomicBoolean answered = new AtomicBoolean();
        if (closed || !(codec.decode(WARM_UP_REQUEST) instanceof Decoded.Single single)
                || !(single.message() instanceof JsonRpcRequest request)) {
            return false;
        }
        try {
            serve(request, (message, relatedTo) -> {
                codec.encode(message);
                answered.set(message instanceof JsonRpcResult);
            }).close();
        } catch (IllegalStateException closedAlready) {
            return false;
        }
        Thread.startVirtualThread(() -> {
        });
        return answered.get();
    }

    /** Tells the clients subscribed to {@code uri} that it changed, and drops its cached reads. */
    public void notifyResourceUpdated(String uri) {
        resourceUpdated(uri);
        if (bus != NotificationBus.LOCAL) {
            bus.publish(new NotificationBus.ResourceUpdated(uri));
        }
    }

    private void resourceUpdated(String uri) {
        results.invalidate(ResultCache.Kind.RESOURCE, uri);
        for (DefaultServerChannel c : channels) {
            c.resourceUpdated(uri);
        }
        listens.resourceUpdated(uri);
    }

    /**
     * Caches the results of the tool {@code name} with {@code policy} from now on, over what the tool declares, or
     * goes back to its declaration when {@code policy} is null: caching as a deployment's choice rather than the
     * code's. Drops what was cached for it.
     */
    public void cacheTool(String name, @Nullable CachePolicy policy) {
        Objects.requireNonNull(name, "name");
        synchronized (this) {
            java.util.Map<String, CachePolicy> policies = new java.util.HashMap<>(toolCachePolicies);
            if (policy == null) {
                policies.remove(name);
            } else {
                policies.put(name, policy);
            }
            toolCachePolicies = java.util.Map.copyOf(policies);
        }
        invalidateTool(name);
    }

    /** The cache policy a call of {@code tool} follows, or null. */
    @Nullable CachePolicy cachePolicy(ToolSpec tool) {
        java.util.Map<String, CachePolicy> policies = toolCachePolicies;
        return policies.isEmpty() ? tool.cache() : policies.getOrDefault(tool.name(), tool.cache());
    }

    /** Drops the cached results of the tool {@code name} (see {@link CachePolicy}): the next call runs it. */
    public void invalidateTool(String name) {
        results.invalidate(ResultCache.Kind.TOOL, Objects.requireNonNull(name, "name"));
    }

    /** Drops the cached reads of {@code uri}, without telling subscribers (see {@link #notifyResourceUpdated}). */
    public void invalidateResource(String uri) {
        results.invalidate(ResultCache.Kind.RESOURCE, Objects.requireNonNull(uri, "uri"));
    }

    /** Drops the cached results of the prompt {@code name}. */
    public void invalidatePrompt(String name) {
        results.invalidate(ResultCache.Kind.PROMPT, Objects.requireNonNull(name, "name"));
    }

    /** Drops every cached result. */
    public void invalidateCache() {
        results.invalidateAll();
    }

    /** Open channels: connections such as stdio pipes and legacy sessions (a request served on its own has none). */
    public int channelCount() {
        return channels.size();
    }

    private void listChanged(FeatureRegistry.Kind kind) {
        featuresRevision.incrementAndGet();
        deliverListChanged(kind);
        if (publishedChanges != null) {
            publishedChanges.changed(kind);
        }
    }

    /** What another node published: its clients heard of it from that node, this node's clients hear of it here. */
    private void received(NotificationBus.Notice notice) {
        if (closed) {
            return;
        }
        switch (notice) {
            case NotificationBus.ListChanged c -> {
                FeatureRegistry.Kind kind = FeatureRegistry.Kind.of(c.list());
                if (kind != null) {
                    deliverListChanged(kind);
                }
            }
            case NotificationBus.ResourceUpdated u -> resourceUpdated(u.uri());
            case NotificationBus.SessionChanged ignored -> {
                // the transport holding the sessions subscribes for these itself
            }
            case NotificationBus.ClientResponse ignored -> {
                // as are these
            }
            case NotificationBus.TaskCancelled t -> tasks.cancelledElsewhere(t.taskId());
        }
    }

    private void deliverListChanged(FeatureRegistry.Kind kind) {
        results.invalidate(switch (kind) {
            case TOOLS -> ResultCache.Kind.TOOL;
            case RESOURCES -> ResultCache.Kind.RESOURCE;
            case PROMPTS -> ResultCache.Kind.PROMPT;
        });
        for (DefaultServerChannel c : channels) {
            c.listChanged(kind);
        }
        listens.listChanged(kind);
    }

    /** Closes every channel (cancelling in-flight work) and stops the scheduler. */
    @Override
    public void close() {
        closed = true;
        tasks.close();
        for (DefaultServerChannel c : channels) {
            c.close();
        }
        listens.endAll();
        directCalls.cancelAll();
        scheduler.shutdownNow();
    }

    ServerConfig config() {
        return config;
    }

    @Nullable String requestIdPrefix() {
        return requestIdPrefix;
    }

    /**
     * How this node tells the other nodes of a cluster what their clients must hear of; {@link NotificationBus#LOCAL}
     * unless set.
     */
    public NotificationBus notificationBus() {
        return bus;
    }

    /** Where this server and its transports report requests, sessions and counts; {@link McpObserver#off()} unless set. */
    public McpObserver observer() {
        return observer;
    }

    FeatureRegistry registry() {
        return registry;
    }

    /** How this node tells the others. */
    NotificationBus bus() {
        return bus;
    }

    ScheduledExecutorService scheduler() {
        return scheduler;
    }

    boolean isClosed() {
        return closed;
    }

    RequestRunner runner() {
        return runner;
    }

    Listens listens() {
        return listens;
    }

    HandlerDeadlines deadlines() {
        return deadlines;
    }

    RequestStateSealer sealer() {
        return sealer;
    }

    String instructions() {
        return instructions;
    }

    /** The capabilities announced in a revision; shared, never to be modified. */
    ObjectNode capabilities(dev.tern.protocol.ProtocolVersion version) {
        return switch (version) {
            case V2026_07_28 -> modernCapabilities;
            case V2025_11_25 -> capabilitiesWithTasks;
            default -> capabilities;
        };
    }

    Tasks tasks() {
        return tasks;
    }

    ResultCache results() {
        return results;
    }

    ObjectNode serverInfoMeta() {
        return serverInfoMeta;
    }

    void detach(DefaultServerChannel channel) {
        channels.remove(channel);
    }

    private ObjectNode buildCapabilities() {
        ObjectNode caps = Json.object();
        caps.putObject("tools").put("listChanged", true);
        caps.putObject("resources").put("subscribe", true).put("listChanged", true);
        caps.putObject("prompts").put("listChanged", true);
        caps.putObject("completions");
        caps.putObject("logging");
        return caps;
    }

    /** Builds a {@link McpServer}. */
    public static final class Builder {
        private Implementation info = Implementation.of("tern", "0.1.0");
        private String instructions;
        private final FeatureRegistry registry = new FeatureRegistry();
        private int pageSize = 100;
        private Duration handlerTimeout = Duration.ofMinutes(5);
        private Duration clientRequestTimeout = Duration.ofMinutes(2);
        private Duration listChangedDelay = Duration.ofMillis(50);
        private LoggingLevel defaultLogLevel = LoggingLevel.INFO;
        private java.util.List<byte[]> requestStateKeys;
        private boolean listOnlyPermitted;
        private TaskStore taskStore;
        private @Nullable TaskQueue taskQueue;
        private McpObserver observer = McpObserver.off();
        private NotificationBus bus = NotificationBus.LOCAL;
        private long resultCacheMaxBytes = 64L << 20;
        private @Nullable CacheSecondLevel cacheSecondLevel;
        private int progressPerSecond = 20;
        private int logsPerSecond = 100;
        private com.github.benmanes.caffeine.cache.Ticker cacheTicker = com.github.benmanes.caffeine.cache.Ticker.systemTicker();

        private Builder() {
        }

        public Builder info(String name, String version) {
            this.info = Implementation.of(name, version);
            return this;
        }

        public Builder info(Implementation info) {
            this.info = Objects.requireNonNull(info, "info");
            return this;
        }

        public Builder instructions(@Nullable String instructions) {
            this.instructions = instructions;
            return this;
        }

        public Builder tool(ToolSpec tool) {
            registry.add(tool);
            return this;
        }

        public Builder resource(ResourceSpec resource) {
            registry.add(resource);
            return this;
        }

        public Builder resourceTemplate(ResourceTemplateSpec template) {
            registry.add(template);
            return this;
        }

        public Builder prompt(PromptSpec prompt) {
            registry.add(prompt);
            return this;
        }

        /**
         * Registers every {@link Tool}, {@link Resource}, {@link Prompt} and {@link Complete} method of
         * {@code service}.
         */
        public Builder register(Object service) {
            AnnotatedFeatures.scan(service).registerInto(registry);
            return this;
        }

        /**
         * The mapper that binds tool arguments to Java types, serializes what tools and resources return, and names
         * the properties of the schemas generated from Java types, for the features registered before and after this
         * call. Protocol messages are read and written by Tern's own codec whatever is set here. Default:
         * {@link Json#mapper()}; start from {@code Json.mapper().rebuild()} to keep its strict input and compact
         * output.
         */
        public Builder jsonMapper(JsonMapper mapper) {
            registry.mapper(Objects.requireNonNull(mapper, "mapper"));
            return this;
        }

        /** Items per page of every list result (default 100). */
        public Builder pageSize(int pageSize) {
            if (pageSize <= 0) {
                throw new IllegalArgumentException("pageSize: " + pageSize + " (expected: > 0)");
            }
            this.pageSize = pageSize;
            return this;
        }

        /** How long a tool, resource or prompt handler may run before it is cancelled (default 5 minutes). */
        public Builder handlerTimeout(Duration timeout) {
            this.handlerTimeout = positive("handlerTimeout", timeout);
            return this;
        }

        /** How long to wait for the client to answer an elicitation, sampling or roots request (default 2 minutes). */
        public Builder clientRequestTimeout(Duration timeout) {
            this.clientRequestTimeout = positive("clientRequestTimeout", timeout);
            return this;
        }

        /** The window within which list changes are coalesced into one notification (default 50 ms). */
        public Builder listChangedDelay(Duration delay) {
            this.listChangedDelay = Objects.requireNonNull(delay, "delay");
            return this;
        }

        /** The least severe log level sent to a legacy session that has not called {@code logging/setLevel}. */
        public Builder defaultLogLevel(LoggingLevel level) {
            this.defaultLogLevel = Objects.requireNonNull(level, "level");
            return this;
        }

        /** The HMAC key sealing {@code requestState}; shared by every node of a cluster. Random if not set. */
        public Builder requestStateKey(byte[] key) {
            return requestStateKeys(key);
        }

        /**
         * Rotates the {@code requestState} key: {@code current} seals, and state sealed with one of the
         * {@code previous} keys is still accepted, so that nodes may take up a new key one after the other.
         */
        public Builder requestStateKeys(byte[] current, byte[]... previous) {
            java.util.List<byte[]> keys = new java.util.ArrayList<>();
            keys.add(current);
            keys.addAll(java.util.Arrays.asList(previous));
            for (byte[] key : keys) {
                if (key.length < 32) {
                    throw new IllegalArgumentException("requestStateKey: " + key.length + " bytes (expected: >= 32)");
                }
            }
            this.requestStateKeys = keys.stream().map(byte[]::clone).toList();
            return this;
        }

        /**
         * Leaves out of {@code tools/list}, {@code resources/list}, {@code resources/templates/list} and
         * {@code prompts/list} what the caller's token lacks the scopes for ({@link ToolSpec.Builder#scopes}), so
         * that a model is not offered what it may not call. Off by default: a client then learns of a scope it could
         * ask for in a step-up. Without an authenticated caller, everything is listed.
         */
        public Builder listOnlyPermitted(boolean enabled) {
            this.listOnlyPermitted = enabled;
            return this;
        }

        /** Where tasks are kept (default: in memory, bounded). */
        public Builder taskStore(TaskStore store) {
            this.taskStore = Objects.requireNonNull(store, "store");
            return this;
        }

        /**
         * Where task-augmented tool calls wait to run, shared with other nodes so that another node finishes a task
         * whose node stopped (default: none, each task runs on the node that accepted it). The server starts the queue
         * and closes it when it closes.
         */
        public Builder taskQueue(TaskQueue queue) {
            this.taskQueue = Objects.requireNonNull(queue, "queue");
            return this;
        }

        /** Where requests, sessions and the transports' counts are reported (default: {@link McpObserver#off()}). */
        public Builder observer(McpObserver observer) {
            this.observer = Objects.requireNonNull(observer, "observer");
            return this;
        }

        /**
         * How this node tells the other nodes serving the same clients of list changes and resource updates, and
         * hears of theirs (default: {@link NotificationBus#LOCAL}, a single node).
         */
        public Builder notificationBus(NotificationBus bus) {
            this.bus = Objects.requireNonNull(bus, "bus");
            return this;
        }

        /**
         * The most the cached results of {@link CachePolicy cacheable} features may hold, measured as their
         * serialized JSON (default 64 MiB); past it the least valuable are evicted (W-TinyLFU). 0 keeps none.
         */
        public Builder resultCacheMaxBytes(long maxBytes) {
            if (maxBytes < 0) {
                throw new IllegalArgumentException("resultCacheMaxBytes: " + maxBytes + " (expected: >= 0)");
            }
            this.resultCacheMaxBytes = maxBytes;
            return this;
        }

        /**
         * A second level behind the result cache for public results, shared by the nodes serving the same features
         * (tern-redis has one); none by default.
         */
        public Builder cacheSecondLevel(CacheSecondLevel level) {
            this.cacheSecondLevel = Objects.requireNonNull(level, "level");
            return this;
        }

        /**
         * How many progress and log notifications one request may send a second, each in bursts of as many
         * (defaults 20 and 100), so that a handler reporting in a tight loop does not flood a slow client. Progress
         * beyond it is coalesced (the latest goes out when allowed, and before the response); log messages beyond it
         * are dropped and their count sent as one warning.
         */
        public Builder notificationRates(int progressPerSecond, int logsPerSecond) {
            if (progressPerSecond <= 0 || logsPerSecond <= 0) {
                throw new IllegalArgumentException("notificationRates: " + progressPerSecond + ", " + logsPerSecond
                        + " (expected: > 0)");
            }
            this.progressPerSecond = progressPerSecond;
            this.logsPerSecond = logsPerSecond;
            return this;
        }

        /** The clock of cached results' freshness; tests turn it by hand. */
        Builder cacheTicker(com.github.benmanes.caffeine.cache.Ticker ticker) {
            this.cacheTicker = Objects.requireNonNull(ticker, "ticker");
            return this;
        }

        public McpServer build() {
            return new McpServer(this);
        }

        private ServerConfig config() {
            return new ServerConfig(pageSize, handlerTimeout, clientRequestTimeout, listChangedDelay,
                    Duration.ofMinutes(10), 60_000, 0, "public", defaultLogLevel, progressPerSecond, logsPerSecond);
        }

        private static Duration positive(String name, Duration d) {
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(name + ": " + d + " (expected: > 0)");
            }
            return d;
        }
    }
}
