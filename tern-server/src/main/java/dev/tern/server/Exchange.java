package dev.tern.server;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

import dev.tern.protocol.Cancellation;
import dev.tern.protocol.ErrorCodes;
import dev.tern.protocol.Json;
import dev.tern.protocol.JsonRpcNotification;
import dev.tern.protocol.JsonRpcRequest;
import dev.tern.protocol.JsonRpcResponse;
import dev.tern.protocol.McpException;
import dev.tern.protocol.McpMeta;
import dev.tern.protocol.PendingRequests;
import dev.tern.protocol.ProtocolVersion;
import dev.tern.protocol.RequestId;
import dev.tern.protocol.model.CreateMessageResult;
import dev.tern.protocol.model.ElicitResult;
import dev.tern.protocol.model.Implementation;
import dev.tern.protocol.model.LoggingLevel;
import dev.tern.protocol.model.Root;
import dev.tern.server.observe.RequestObservation;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** One request being served: its params, era, cancellation and the way back to the client. */
final class Exchange implements RequestContext {
    final McpServer server;
    /** The connection the request came on, or {@code null} for a request served on its own or a direct call. */
    final DefaultServerChannel channel;
    final RequestHost host;
    final JsonRpcRequest request;
    final ProtocolVersion version;
    final ObjectNode params;
    final ObjectNode meta;
    final ObjectNode clientCapabilities;
    final Implementation clientInfo;
    final Cancellation cancellation = new Cancellation();
    final LoggingLevel logLevel;
    final Consumer<JsonRpcResponse> responder;
    private final JsonNode progressToken;
    private double lastProgress = Double.NEGATIVE_INFINITY;

    /** The client cancelled: nothing more may be sent for this request. */
    volatile boolean suppressed;
    /** The response is out: nothing more may be sent for this request. */
    private boolean finished;
    /** Paces progress and log notifications; made on the first one. */
    private NotificationPacer pacer;
    /** The handler ran past its deadline. */
    volatile boolean timedOut;
    volatile Thread thread;
    /** Runs on the transport's thread (a non-blocking handler): it must not wait for the client. */
    boolean inline;
    /** The cache policy of the feature called, if it has one, and how long its result stays fresh (see ResultCache). */
    CachePolicy cachePolicy;
    long cacheTtlNanos;
    /** The resource a {@code resources/read} names, when found before the read (see Methods). */
    FeatureRegistry.Match resourceMatch;
    /** When the handler started and ended ({@link System#nanoTime()}; 0 if it did not run). */
    long handlerStarted;
    long handlerEnded;

    /** What the server's observer is told of this request; the observer's do-nothing one when it is off. */
    RequestObservation observation = RequestRunner.UNOBSERVED;

    /** Set when this exchange runs a tool as a task. */
    Tasks.Running task;

    /** 2026-07-28: answers to input requests, from the sealed state and this retry. */
    ObjectNode answers;
    private int inputOrdinal;

    Exchange(McpServer server, DefaultServerChannel channel, RequestHost host, JsonRpcRequest request,
            ProtocolVersion version, ObjectNode clientCapabilities, Implementation clientInfo, LoggingLevel logLevel,
            Consumer<JsonRpcResponse> responder) {
        this(server, channel, host, request, version, clientCapabilities, clientInfo, logLevel, responder,
                readProgressToken(request));
    }

    private Exchange(McpServer server, DefaultServerChannel channel, RequestHost host, JsonRpcRequest request,
            ProtocolVersion version, ObjectNode clientCapabilities, Implementation clientInfo, LoggingLevel logLevel,
            Consumer<JsonRpcResponse> responder, JsonNode progressToken) {
        this.server = server;
        this.channel = channel;
        this.host = host;
        this.request = request;
        this.version = version;
        this.params = request.params() != null ? request.params() : Json.object();
        JsonNode m = params.get(McpMeta.KEY);
        this.meta = m instanceof ObjectNode o ? o : Json.object();
        this.clientCapabilities = clientCapabilities != null ? clientCapabilities : Json.object();
        this.clientInfo = clientInfo;
        this.logLevel = logLevel;
        this.responder = responder;
        this.progressToken = progressToken;
    }

    private static JsonNode readProgressToken(JsonRpcRequest request) {
        JsonNode token = request.params() == null ? null : request.params().path(McpMeta.KEY).get(McpMeta.PROGRESS_TOKEN);
        return token != null && (token.isString() || token.isIntegralNumber()) ? token : null;
    }

    /** A copy that runs the same call as a task: its own cancellation, no response, no request-scoped messages in 2026-07-28. */
    Exchange forTask(Tasks.Running run) {
        Exchange copy = new Exchange(server, channel, host, request, version, clientCapabilities, clientInfo,
                modern() ? null : logLevel, response -> {
                }, modern() ? null : progressToken);
        copy.task = run;
        return copy;
    }

    boolean modern() {
        return version.isModern();
    }

    /** Who sent the request, as the transport knows it ({@link Outbound#principal()}); null when anonymous. */
    String principal() {
        return host.outbound().principal();
    }

    @Override
    public Caller caller() {
        return host == null ? null : host.outbound().caller();
    }

    @Override
    public RequestId requestId() {
        return request.id();
    }

    @Override
    public String method() {
        return request.method();
    }

    @Override
    public ProtocolVersion protocolVersion() {
        return version;
    }

    @Override
    public Implementation clientInfo() {
        return clientInfo;
    }

    @Override
    public ObjectNode clientCapabilities() {
        return clientCapabilities;
    }

    @Override
    public ObjectNode meta() {
        return meta;
    }

    @Override
    public Cancellation cancellation() {
        return task != null ? task.cancellation : cancellation;
    }

    @Override
    public void progress(double progress, Double total, String message) {
        if (progressToken == null || cancellation().isCancelled()) {
            return;
        }
        synchronized (this) {
            if (finished || !(progress > lastProgress)) {
                return;
            }
            lastProgress = progress;
        }
        ObjectNode p = Json.object();
        p.set(McpMeta.PROGRESS_TOKEN, progressToken);
        p.put("progress", progress);
        if (total != null) {
            p.put("total", total);
        }
        if (message != null) {
            p.put("message", message);
        }
        synchronized (this) {
            if (!finished) {
                pacer().progress(new JsonRpcNotification("notifications/progress", p));
            }
        }
    }

    /** Sends what the pacer holds, then marks the response as sent; later progress and log messages are dropped. */
    synchronized void finish() {
        if (pacer != null && !finished) {
            pacer.drain();
        }
        finished = true;
    }

    synchronized boolean isFinished() {
        return finished;
    }

    /** Sends a notification of this request at once; called by the pacer with this exchange's lock held. */
    void sendNow(JsonRpcNotification notification) {
        host.send(notification, request.id());
    }

    private NotificationPacer pacer() {
        if (pacer == null) {
            pacer = new NotificationPacer(this, server.config());
        }
        return pacer;
    }

    @Override
    public void log(LoggingLevel level, String logger, Object data) {
        if (logLevel == null || !level.atLeast(logLevel) || cancellation().isCancelled()) {
            return;
        }
        ObjectNode p = Json.object();
        p.put("level", level.wire());
        if (logger != null) {
            p.put("logger", logger);
        }
        p.set("data", Json.mapper().valueToTree(data));
        synchronized (this) {
            if (!finished) {
                pacer().log(new JsonRpcNotification("notifications/message", p));
            }
        }
    }

    @Override
    public ElicitResult elicit(String message, ObjectNode requestedSchema) {
        String key = "elicitation-" + (++inputOrdinal);
        return ask(Map.of(key, InputRequest.elicit(message, requestedSchema))).elicitation(key);
    }

    @Override
    public ElicitResult elicitUrl(String message, String url, String elicitationId) {
        String key = "elicitation-" + (++inputOrdinal);
        return ask(Map.of(key, InputRequest.elicitUrl(message, url, elicitationId))).elicitation(key);
    }

    @Override
    public CreateMessageResult sample(ObjectNode params) {
        String key = "sampling-" + (++inputOrdinal);
        return ask(Map.of(key, InputRequest.sample(params))).sampling(key);
    }

    @Override
    public List<Root> roots() {
        String key = "roots-" + (++inputOrdinal);
        return ask(Map.of(key, InputRequest.roots())).roots(key);
    }

    @Override
    public InputAnswers ask(Map<String, InputRequest> requests) {
        cancellation().throwIfCancelled();
        if (task != null && task.clientless) {
            throw Tasks.noClient(task);
        }
        for (InputRequest r : requests.values()) {
            requireCapability(r);
        }
        Map<String, JsonNode> answered = new LinkedHashMap<>();
        Map<String, ObjectNode> missing = new LinkedHashMap<>();
        if (task != null) {
            Map<String, ObjectNode> inputRequests = new LinkedHashMap<>();
            for (Map.Entry<String, InputRequest> e : requests.entrySet()) {
                inputRequests.put(e.getKey(), inputRequest(e.getValue().method(), adapt(e.getValue())));
            }
            answered.putAll(server.tasks().ask(task, this, inputRequests, key -> {
                InputRequest r = requests.get(key);
                return sendAndWait(r.method(), withRelatedTask(adapt(r)));
            }));
            return new InputAnswers(answered);
        }
        for (Map.Entry<String, InputRequest> e : requests.entrySet()) {
            String key = e.getKey();
            ObjectNode params = adapt(e.getValue());
            if (modern()) {
                JsonNode answer = answers == null ? null : answers.get(key);
                if (answer != null) {
                    answered.put(key, answer);
                } else {
                    missing.put(key, inputRequest(e.getValue().method(), params));
                }
            } else {
                answered.put(key, sendAndWait(e.getValue().method(), params));
            }
        }
        if (!missing.isEmpty()) {
            throw new InputRequiredSignal(missing);
        }
        return new InputAnswers(answered);
    }

    @Override
    public void continueAsTask() {
        server.tasks().continueAsTask(this);
    }

    private static ObjectNode inputRequest(String method, ObjectNode params) {
        ObjectNode inputRequest = Json.object();
        inputRequest.put("method", method);
        if (params != null) {
            inputRequest.set("params", params);
        }
        return inputRequest;
    }

    /** Shapes an input request's params for this revision. */
    private ObjectNode adapt(InputRequest request) {
        ObjectNode p = request.params() == null ? null : request.params().deepCopy();
        if (p != null && request.method().equals("elicitation/create")) {
            if (modern()) {
                p.remove("elicitationId");
            } else if (version == ProtocolVersion.V2025_11_25 && !p.has("mode")) {
                p.put("mode", "form");
            }
        }
        return p;
    }

    private void requireCapability(InputRequest request) {
        switch (request.method()) {
            case "elicitation/create" -> requireCapability("elicitation", request.isUrlElicitation() ? "url" : "form");
            case "sampling/createMessage" -> requireCapability("sampling", null);
            case "roots/list" -> requireCapability("roots", null);
            default -> throw new IllegalArgumentException("Not an input request method: " + request.method());
        }
    }

    private void requireCapability(String capability, String mode) {
        JsonNode cap = clientCapabilities.get(capability);
        boolean ok = cap != null && cap.isObject();
        if (ok && mode != null && capability.equals("elicitation")) {
            boolean anyMode = cap.has("form") || cap.has("url");
            ok = mode.equals("form") ? (!anyMode || cap.has("form")) : cap.has("url");
        }
        if (ok) {
            return;
        }
        String what = capability + (mode == null ? "" : " (" + mode + " mode)");
        if (modern()) {
            ObjectNode required = Json.object();
            ObjectNode c = required.putObject(capability);
            if (mode != null) {
                c.putObject(mode);
            }
            ObjectNode data = Json.object();
            data.set("requiredCapabilities", required);
            throw new McpException(ErrorCodes.MISSING_CLIENT_CAPABILITY, "Missing required client capability: " + what, data);
        }
        throw new McpException(ErrorCodes.INVALID_REQUEST, "The client did not declare the " + what + " capability");
    }

    private ObjectNode withRelatedTask(ObjectNode p) {
        ObjectNode params = p == null ? Json.object() : p.deepCopy();
        ObjectNode meta = params.get(McpMeta.KEY) instanceof ObjectNode m ? m : params.putObject(McpMeta.KEY);
        meta.putObject(McpMeta.RELATED_TASK).put("taskId", task.taskId);
        return params;
    }

    /** Legacy: sends a server-to-client request and waits for its answer, observed as one outgoing request. */
    private JsonNode sendAndWait(String method, ObjectNode p) {
        dev.tern.server.observe.OutgoingObservation observed = observation.outgoing(method, System.nanoTime());
        try {
            JsonNode answer = sendAndWaitUnobserved(method, p);
            observed.end(System.nanoTime());
            return answer;
        } catch (McpException e) {
            observed.endError(System.nanoTime(), Integer.toString(e.code()), e.getMessage());
            throw e;
        } catch (CancellationException e) {
            observed.endError(System.nanoTime(), "cancelled", e.getMessage());
            throw e;
        }
    }

    private JsonNode sendAndWaitUnobserved(String method, ObjectNode p) {
        if (inline) {
            throw new IllegalStateException("A non-blocking handler cannot wait for the client's answer to " + method
                    + " in a legacy session: declare it without nonBlocking");
        }
        PendingRequests.Outgoing outgoing = channel.pending().register(server.config().clientRequestTimeout());
        cancellation().onCancel(() -> outgoing.response().cancel(false));
        channel.send(new JsonRpcRequest(outgoing.id(), method, p), request.id());
        try {
            return outgoing.response().get();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof McpException m) {
                throw m;
            }
            if (cause instanceof TimeoutException) {
                channel.cancelClientRequest(outgoing.id(), request.id(), "timeout");
                throw new McpException(ErrorCodes.INTERNAL_ERROR, "The client did not answer " + method + " in time");
            }
            throw new McpException(ErrorCodes.INTERNAL_ERROR, "The client's answer to " + method + " failed");
        } catch (CancellationException e) {
            channel.cancelClientRequest(outgoing.id(), request.id(), "request cancelled");
            throw e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            channel.cancelClientRequest(outgoing.id(), request.id(), "request cancelled");
            throw new CancellationException("interrupted");
        }
    }
}
