package dev.tern.server;

import java.lang.System.Logger.Level;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.tern.protocol.Cancellation;
import dev.tern.protocol.ErrorCodes;
import dev.tern.protocol.Json;
import dev.tern.protocol.JsonRpcError;
import dev.tern.protocol.JsonRpcNotification;
import dev.tern.protocol.JsonRpcRequest;
import dev.tern.protocol.McpException;
import dev.tern.protocol.McpMeta;
import dev.tern.protocol.ProtocolVersion;
import dev.tern.protocol.RequestId;
import dev.tern.server.observe.RequestObservation;
import dev.tern.server.observe.TaskObservation;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import org.jspecify.annotations.Nullable;

/**
 * Runs tool calls as tasks: the 2025-11-25 experimental tasks (a {@code task} param on {@code tools/call};
 * {@code tasks/get|result|list|cancel}) and the 2026-07-28 tasks extension ({@code io.modelcontextprotocol/tasks};
 * {@code tasks/get|update|cancel}). Task state lives in a {@link TaskStore}; the running work lives here. With a
 * {@link TaskQueue}, a task is queued and the queue runs it: on this node, with its client, unless this node stops
 * first; then on another node, which has no connection to the client.
 */
final class Tasks {
    static final String EXTENSION = McpMeta.TASKS_EXTENSION;
    static final String RELATED_TASK = McpMeta.RELATED_TASK;
    static final String STATELESS_OWNER = "stateless";
    private static final System.Logger LOG = System.getLogger("dev.tern.server");
    private static final long POLL_INTERVAL_MS = 1_000;

    private final McpServer server;
    private final TaskStore store;
    private final @Nullable TaskQueue queue;
    /** Queued tasks accepted here, waiting for the queue to run them here with their request's exchange. */
    private final Map<String, LocalStart> localStarts = new ConcurrentHashMap<>();
    private final Clock clock = Clock.systemUTC();
    private final SecureRandom random = new SecureRandom();
    private final Map<String, Running> running = new ConcurrentHashMap<>();
    /** 2026-07-28 calls whose handler runs before its task exists, by their exchange. */
    private final Map<Exchange, BeforeTask> beforeTask = new ConcurrentHashMap<>();

    /** A task not created yet, and the request that answers with it (or with the handler's own answer). */
    private record BeforeTask(Running run, CompletableFuture<ObjectNode> reply) {
    }

    /** A queued task accepted here: what its run needs of the request that created it. */
    private record LocalStart(Running run, Exchange exchange, ToolSpec tool, ObjectNode arguments) {
    }

    /** A task whose handler runs in this process. */
    static final class Running {
        final String taskId;
        final String owner;
        /** The connection of the client that created it; null for a 2026-07-28 request, or a task run again here. */
        final @Nullable DefaultServerChannel channel;
        /** Run by a queue: stopped without a cancel (the node is closing), it is not finished but handed back. */
        volatile boolean queued;
        /** Run again on a node the client never reached, so it has nobody to ask for input. */
        volatile boolean clientless;
        final Cancellation cancellation = new Cancellation();
        final CompletableFuture<Void> done = new CompletableFuture<>();
        final Map<String, CompletableFuture<JsonNode>> answers = new ConcurrentHashMap<>();
        volatile Thread thread;
        volatile TaskObservation observation = TaskObservation.NONE;

        Running(String taskId, String owner, @Nullable DefaultServerChannel channel) {
            this.taskId = taskId;
            this.owner = owner;
            this.channel = channel;
        }
    }

    Tasks(McpServer server, TaskStore store, @Nullable TaskQueue queue) {
        this.server = server;
        this.store = store;
        this.queue = queue;
    }

    /** Lets the queue, if any, run tasks from now on. */
    void startQueue() {
        if (queue != null) {
            queue.start(this::runQueued);
        }
    }

    /** Gives the queued tasks running here back to the queue (the server is closing). */
    void close() {
        if (queue != null) {
            queue.close();
        }
    }

    /** Whether this {@code tools/call} should run as a task, or fail because it must. */
    boolean wantsTask(Exchange e, ToolSpec tool) {
        TaskSupport support = tool.taskSupport();
        if (e.modern()) {
            boolean declared = e.clientCapabilities.path("extensions").has(EXTENSION);
            if (support == TaskSupport.REQUIRED && !declared) {
                throw missingExtension();
            }
            return declared && support != TaskSupport.FORBIDDEN;
        }
        if (e.version != ProtocolVersion.V2025_11_25) {
            return false;
        }
        JsonNode task = e.params.get("task");
        boolean asked = task != null && !task.isNull();
        if (asked && !task.isObject()) {
            throw McpException.invalidParams("Invalid params: task must be an object");
        }
        if (asked && support == TaskSupport.FORBIDDEN) {
            throw new McpException(ErrorCodes.METHOD_NOT_FOUND, "Tool " + tool.name() + " does not support task execution");
        }
        if (!asked && support == TaskSupport.REQUIRED) {
            throw new McpException(ErrorCodes.METHOD_NOT_FOUND, "Tool " + tool.name() + " must be called as a task");
        }
        return asked;
    }

    /**
     * Runs the tool as a task: created before the handler starts, answering at once; or, for a tool that asks before
     * its task in 2026-07-28, created when the handler calls {@link RequestContext#continueAsTask()}.
     */
    ObjectNode start(Exchange e, ToolSpec tool, ObjectNode arguments) {
        Running run = new Running(newId(), owner(e), e.channel);
        if (e.modern() && tool.inputBeforeTask()) {
            return startAfterInput(run, e, tool, arguments);
        }
        ObjectNode created = create(run, e);
        Exchange taskExchange = e.forTask(run);
        if (queue != null) {
            enqueue(run, e, taskExchange, tool, arguments);
            return created;
        }
        Thread.ofVirtual().name("tern-task-", 0).start(() -> {
            run.thread = Thread.currentThread();
            try (RequestObservation.Scope ignored = run.observation.running()) {
                complete(run, taskExchange, () -> Methods.invokeTool(taskExchange, tool, arguments));
            } finally {
                run.thread = null;
                Thread.interrupted();
            }
        });
        return created;
    }

    /**
     * Hands a created task to the queue, which normally runs it at once on this node ({@link #runQueued}); a task the
     * queue cannot take is deleted again and the request fails as the queue did (503 when Redis is down).
     */
    private void enqueue(Running run, Exchange e, Exchange taskExchange, ToolSpec tool, ObjectNode arguments) {
        run.queued = true;
        localStarts.put(run.taskId, new LocalStart(run, taskExchange, tool, arguments));
        try {
            queue.submit(run.taskId, queuedCall(e, tool, arguments, run.owner));
        } catch (RuntimeException failed) {
            localStarts.remove(run.taskId);
            running.remove(run.taskId);
            run.done.complete(null);
            try {
                store.delete(run.taskId);
            } catch (RuntimeException alsoFailed) {
                LOG.log(Level.DEBUG, "Task {0} could not be queued nor deleted: {1}", run.taskId, alsoFailed.getMessage());
            }
            throw failed;
        }
    }

    /**
     * The queue's runner: a task accepted here runs with its request's exchange; one accepted by another node (that
     * node stopped) runs with an exchange of its own and no client, unless it is final already. Returns once the
     * task's final status is stored; throws when the task was handed back unfinished.
     */
    private void runQueued(String taskId, TaskQueue.Call call) {
        LocalStart local = localStarts.remove(taskId);
        Running run;
        Exchange exchange;
        Work work;
        if (local != null) {
            run = local.run;
            exchange = local.exchange;
            work = () -> Methods.invokeTool(local.exchange, local.tool, local.arguments);
        } else {
            TaskRecord record = store.find(taskId).orElse(null);
            if (record == null || record.status().terminal()) {
                return;
            }
            run = new Running(taskId, record.owner(), null);
            run.queued = true;
            run.clientless = true;
            running.put(taskId, run);
            armDeadline(run);
            exchange = resumed(run, call);
            ToolSpec tool = server.registry().tool(call.tool());
            work = () -> {
                if (tool == null) {
                    throw new McpException(ErrorCodes.INTERNAL_ERROR, "Task " + taskId + " calls tool " + call.tool()
                            + ", which this node does not have");
                }
                return Methods.invokeTool(exchange, tool, call.arguments());
            };
        }
        boolean finished;
        run.thread = Thread.currentThread();
        try (RequestObservation.Scope ignored = run.observation.running()) {
            finished = complete(run, exchange, work);
        } finally {
            run.thread = null;
            Thread.interrupted();
        }
        if (!finished) {
            throw new CancellationException("Task " + taskId + " was handed back unfinished");
        }
    }

    /** What a queue keeps of a task-augmented call, so that any node can run it. */
    private static TaskQueue.Call queuedCall(Exchange e, ToolSpec tool, ObjectNode arguments, String owner) {
        Caller c = e.caller();
        ObjectNode caller = null;
        if (c != null) {
            caller = Json.object();
            caller.put("name", c.name());
            var scopes = caller.putArray("scopes");
            c.scopes().forEach(scopes::add);
            try {
                caller.set("claims", Json.mapper().valueToTree(c.claims()));
            } catch (RuntimeException unwritable) {
                caller.putObject("claims");
            }
        }
        return new TaskQueue.Call(tool.name(), arguments, e.meta.deepCopy(), e.version.id(), owner, e.principal(), caller);
    }

    /** The exchange of a task run again on this node: the call as it was made, from a client that is not here. */
    private Exchange resumed(Running run, TaskQueue.Call call) {
        ObjectNode params = Json.object();
        params.put("name", call.tool());
        params.set("arguments", call.arguments());
        params.set(McpMeta.KEY, call.meta());
        JsonRpcRequest request = new JsonRpcRequest(RequestId.of("task-" + run.taskId), "tools/call", params);
        ProtocolVersion version = ProtocolVersion.parse(call.protocolVersion()).orElse(ProtocolVersion.LATEST);
        Exchange exchange = new Exchange(server, null, DirectCalls.host(call.principal(), queuedCaller(call.caller())),
                request, version, Json.object(), null, null, response -> {
                });
        exchange.task = run;
        return exchange;
    }

    private static @Nullable Caller queuedCaller(@Nullable ObjectNode caller) {
        if (caller == null) {
            return null;
        }
        Set<String> scopes = new java.util.LinkedHashSet<>();
        caller.path("scopes").forEach(s -> scopes.add(s.asString()));
        @SuppressWarnings("unchecked")
        Map<String, Object> claims = Json.mapper().convertValue(caller.path("claims"), Map.class);
        return new QueuedCaller(caller.path("name").asString(), Set.copyOf(scopes), claims == null ? Map.of() : claims);
    }

    /** The caller of a task run on another node than the one it reached: all but its token, which is never kept. */
    private record QueuedCaller(String name, Set<String> scopes, Map<String, Object> claims) implements Caller {
        @Override
        public String downstreamToken(java.net.URI audience, Set<String> wanted) {
            throw new IllegalStateException("A task run again on another node has no token of its caller to exchange");
        }
    }

    /** What a task run again on another node answers when its handler asks the client for input. */
    static McpException noClient(Running run) {
        return new McpException(ErrorCodes.INTERNAL_ERROR, "Task " + run.taskId + " was run again on a node its client "
                + "never reached, which cannot ask the client for input");
    }

    /** Saves the new task and arms its deadline; answers the created task, as {@code tools/call} returns it. */
    private ObjectNode create(Running run, Exchange e) {
        Long ttlMs = null;
        JsonNode ttl = e.params.path("task").get("ttl");
        if (ttl != null && ttl.isIntegralNumber() && ttl.longValue() > 0) {
            ttlMs = ttl.longValue();
        }
        if (ttlMs == null) {
            ttlMs = Duration.ofHours(1).toMillis();
        }
        Instant now = clock.instant();
        TaskRecord record = new TaskRecord(run.taskId, run.owner, TaskStatus.WORKING, null, now, now, ttlMs,
                POLL_INTERVAL_MS, null, null, null);
        try {
            store.save(record);
        } catch (IllegalStateException full) {
            throw new McpException(ErrorCodes.INTERNAL_ERROR, "Too many tasks; try again later");
        }
        running.put(run.taskId, run);
        run.observation = e.observation.task(run.taskId, System.nanoTime());
        armDeadline(run);
        ObjectNode result = Json.object();
        if (e.modern()) {
            result.put("resultType", "task");
            result.setAll(modernTask(record));
            result.remove("result");
        } else {
            result.set("task", legacyTask(record));
        }
        return result;
    }

    private void armDeadline(Running run) {
        server.scheduler().schedule(() -> {
            if (!run.done.isDone()) {
                cancelRunning(run, "timed out");
            }
        }, server.config().handlerTimeout().toNanos(), TimeUnit.NANOSECONDS);
    }

    /**
     * The handler runs on a thread of its own as part of this request until it calls
     * {@link RequestContext#continueAsTask()}; the request answers with whatever comes first: the created task, the
     * handler's result, or its failure (an {@code input_required} signal among them).
     */
    private ObjectNode startAfterInput(Running run, Exchange e, ToolSpec tool, ObjectNode arguments) {
        CompletableFuture<ObjectNode> reply = new CompletableFuture<>();
        beforeTask.put(e, new BeforeTask(run, reply));
        Thread handler = Thread.ofVirtual().name("tern-task-", 0).unstarted(() -> {
            run.thread = Thread.currentThread();
            try {
                complete(run, e, () -> {
                    try {
                        // Until the task is created, the handler's result or failure is the request's answer,
                        // and there is no task to finish.
                        ObjectNode result = Methods.invokeTool(e, tool, arguments);
                        return reply.complete(result) ? null : result;
                    } catch (Throwable t) {
                        if (reply.completeExceptionally(t)) {
                            return null;
                        }
                        throw t;
                    }
                });
            } finally {
                beforeTask.remove(e);
                run.thread = null;
                Thread.interrupted();
            }
        });
        e.cancellation.onCancel(() -> {
            if (!reply.isDone()) {
                handler.interrupt();
            }
        });
        handler.start();
        try {
            return reply.get();
        } catch (InterruptedException interrupted) {
            handler.interrupt();
            Thread.currentThread().interrupt();
            throw new CancellationException("interrupted");
        } catch (ExecutionException failed) {
            Throwable cause = failed.getCause();
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException(cause);
        }
    }

    /** Called by the handler itself: creates its task and hands the request the created task. */
    void continueAsTask(Exchange e) {
        BeforeTask pending = beforeTask.remove(e);
        if (pending == null) {
            return;
        }
        ObjectNode created = create(pending.run, e);
        e.task = pending.run;
        pending.reply.complete(created);
    }

    /** The handler's work: a result, or {@code null} when the request took it and there is no task to finish. */
    private interface Work {
        ObjectNode run() throws Throwable;
    }

    /**
     * Runs the work and writes the task's outcome: a protocol error fails the task, a tool error completes it. Answers
     * false, writing nothing, for a queued task stopped without a cancel: its queue is closing and hands it back.
     */
    private boolean complete(Running run, Exchange exchange, Work work) {
        TaskStatus terminal;
        ObjectNode result = null;
        JsonRpcError error = null;
        try {
            result = work.run();
            if (result == null) {
                return true;
            }
            boolean isError = result.path("isError").asBoolean(false);
            terminal = isError && !exchange.modern() ? TaskStatus.FAILED : TaskStatus.COMPLETED;
        } catch (McpException m) {
            terminal = TaskStatus.FAILED;
            error = m.toError();
        } catch (CancellationException c) {
            terminal = TaskStatus.CANCELLED;
        } catch (Throwable t) {
            if (run.cancellation.isCancelled()) {
                terminal = TaskStatus.CANCELLED;
            } else if (handingBack(run)) {
                return handBack(run);
            } else {
                LOG.log(Level.WARNING, "Task " + run.taskId + " failed", t);
                terminal = TaskStatus.FAILED;
                error = JsonRpcError.of(ErrorCodes.INTERNAL_ERROR, "Internal error");
            }
        }
        if (handingBack(run)) {
            // Whatever the interrupted handler made of it, the task runs again elsewhere.
            return handBack(run);
        }
        finish(run, terminal, result, error);
        return true;
    }

    /** A queued task that ends, uncancelled, once its queue is closing goes back to the queue unfinished. */
    private boolean handingBack(Running run) {
        return run.queued && !run.cancellation.isCancelled() && queue != null && queue.isClosed();
    }

    /** Ends a task here without a final status; answers false, for {@link #complete}. */
    private boolean handBack(Running run) {
        running.remove(run.taskId);
        if (run.observation != TaskObservation.NONE) {
            run.observation.end(System.nanoTime(), TaskStatus.WORKING.wire(), "handed_back",
                    "the node closed; another node runs the task");
        }
        run.done.complete(null);
        return false;
    }

    /** Writes the task's terminal status unless it already has one (a cancel got there first). */
    private void finish(Running run, TaskStatus terminal, ObjectNode result, JsonRpcError error) {
        update(run, current -> current.completed(terminal, result, error, clock.instant()));
        running.remove(run.taskId);
        if (run.observation != TaskObservation.NONE) {
            observeEnd(run, result);
        }
        run.done.complete(null);
    }

    /** Ends the task's observation with the status it was left in, which a cancel may have set before this run ended. */
    private void observeEnd(Running run, ObjectNode result) {
        TaskRecord record = store.find(run.taskId).orElse(null);
        TaskStatus status = record == null ? TaskStatus.CANCELLED : record.status();
        String errorType = null;
        String message = null;
        if (status == TaskStatus.CANCELLED) {
            errorType = "cancelled";
            message = run.cancellation.reason();
        } else if (record.error() != null) {
            errorType = Integer.toString(record.error().code());
            message = record.error().message();
        } else if (result != null && result.path("isError").asBoolean(false)) {
            errorType = "tool_error";
        }
        run.observation.end(System.nanoTime(), status.wire(), errorType, message);
    }

    // ---------------------------------------------------------------- asking the client from a task

    /**
     * Blocks the task until the client answers every input request: server requests one after another (legacy), or
     * all published at once and answered through tasks/update, in any order and any number of updates (modern).
     */
    Map<String, JsonNode> ask(Running run, Exchange exchange, Map<String, ObjectNode> inputRequests,
            java.util.function.Function<String, JsonNode> legacyAsk) {
        Map<String, JsonNode> answers = new java.util.LinkedHashMap<>();
        try {
            if (!exchange.modern()) {
                for (String key : inputRequests.keySet()) {
                    update(run, r -> r.withStatus(TaskStatus.INPUT_REQUIRED, "waiting for the client", clock.instant()));
                    answers.put(key, legacyAsk.apply(key));
                }
                return answers;
            }
            Map<String, CompletableFuture<JsonNode>> waiting = new java.util.LinkedHashMap<>();
            ObjectNode pending = Json.object();
            for (Map.Entry<String, ObjectNode> e : inputRequests.entrySet()) {
                CompletableFuture<JsonNode> answer = run.answers.computeIfAbsent(e.getKey(), k -> new CompletableFuture<>());
                waiting.put(e.getKey(), answer);
                if (!answer.isDone()) {
                    pending.set(e.getKey(), e.getValue());
                }
                run.cancellation.onCancel(() -> answer.cancel(false));
            }
            if (!pending.isEmpty()) {
                update(run, r -> {
                    ObjectNode merged = r.inputRequests() == null ? Json.object() : r.inputRequests().deepCopy();
                    merged.setAll(pending);
                    return r.withInputRequests(merged, clock.instant());
                });
            }
            long deadline = System.nanoTime() + server.config().clientRequestTimeout().toNanos();
            for (Map.Entry<String, CompletableFuture<JsonNode>> e : waiting.entrySet()) {
                answers.put(e.getKey(), e.getValue().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
            }
            return answers;
        } catch (ExecutionException e) {
            throw new McpException(ErrorCodes.INTERNAL_ERROR, "The client's answer failed");
        } catch (TimeoutException e) {
            throw new McpException(ErrorCodes.INTERNAL_ERROR, "The client did not answer in time");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CancellationException("interrupted");
        } finally {
            update(run, r -> r.status() == TaskStatus.INPUT_REQUIRED && (r.inputRequests() == null || r.inputRequests().isEmpty())
                    ? r.withStatus(TaskStatus.WORKING, null, clock.instant()) : r);
        }
    }

    private void update(Running run, java.util.function.UnaryOperator<TaskRecord> change) {
        synchronized (run) {
            store.find(run.taskId).ifPresent(r -> {
                if (!r.status().terminal()) {
                    TaskRecord next = change.apply(r);
                    if (next != r) {
                        store.save(next);
                        statusChanged(run, next);
                    }
                }
            });
        }
    }

    private void statusChanged(Running run, TaskRecord record) {
        if (run.channel == null || run.owner.equals(STATELESS_OWNER) || run.channel.legacyVersion() != ProtocolVersion.V2025_11_25) {
            return;
        }
        run.channel.send(new JsonRpcNotification("notifications/tasks/status", legacyTask(record)), null);
    }

    // ---------------------------------------------------------------- methods

    ObjectNode get(Exchange e) {
        TaskRecord record = find(e);
        return e.modern() ? modernTask(record) : legacyTask(record);
    }

    ObjectNode result(Exchange e) throws InterruptedException {
        TaskRecord record = find(e);
        Running run = running.get(record.taskId());
        if (run != null && !record.status().terminal()) {
            e.cancellation.onCancel(() -> run.done.cancel(false));
            try {
                run.done.get(server.config().handlerTimeout().toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException | TimeoutException ex) {
                throw new McpException(ErrorCodes.INTERNAL_ERROR, "Task " + record.taskId() + " did not finish in time");
            }
            record = find(e);
        }
        long deadline = System.nanoTime() + server.config().handlerTimeout().toNanos();
        while (!record.status().terminal()) {
            if (System.nanoTime() > deadline) {
                throw new McpException(ErrorCodes.INTERNAL_ERROR, "Task " + record.taskId() + " did not finish in time");
            }
            Thread.sleep(record.pollIntervalMs());
            record = find(e);
        }
        if (record.status() == TaskStatus.CANCELLED) {
            throw new McpException(ErrorCodes.INTERNAL_ERROR, "Task " + record.taskId() + " was cancelled");
        }
        if (record.error() != null) {
            throw new McpException(record.error().code(), record.error().message(), record.error().data());
        }
        ObjectNode result = record.result() == null ? Json.object() : record.result().deepCopy();
        ObjectNode meta = result.get(McpMeta.KEY) instanceof ObjectNode given ? given : result.putObject(McpMeta.KEY);
        meta.putObject(RELATED_TASK).put("taskId", record.taskId());
        return result;
    }

    ObjectNode list(Exchange e) {
        var all = store.list(owner(e));
        Cursors.Page<TaskRecord> page = Cursors.page(all,
                e.params.path("cursor").isString() ? e.params.get("cursor").stringValue() : null,
                server.config().pageSize());
        ObjectNode result = Json.object();
        var tasks = result.putArray("tasks");
        page.items().forEach(t -> tasks.add(legacyTask(t)));
        if (page.nextCursor() != null) {
            result.put("nextCursor", page.nextCursor());
        }
        return result;
    }

    ObjectNode cancel(Exchange e) {
        TaskRecord record = find(e);
        Running run = running.get(record.taskId());
        synchronized (run != null ? run : record) {
            record = find(e);
            if (record.status().terminal()) {
                if (e.modern()) {
                    return Json.object();
                }
                throw McpException.invalidParams("Task " + record.taskId() + " is already " + record.status().wire());
            }
            record = record.completed(TaskStatus.CANCELLED, null, null, clock.instant());
            store.save(record);
        }
        if (run != null) {
            cancelRunning(run, "cancelled by the client");
            statusChanged(run, record);
        } else {
            server.bus().publish(new NotificationBus.TaskCancelled(record.taskId()));
        }
        return e.modern() ? Json.object() : legacyTask(record);
    }

    ObjectNode update(Exchange e) {
        TaskRecord record = find(e);
        JsonNode responses = e.params.get("inputResponses");
        if (!(responses instanceof ObjectNode r)) {
            throw McpException.invalidParams("Invalid params: inputResponses must be an object");
        }
        Running run = running.get(record.taskId());
        if (run == null) {
            return Json.object();
        }
        // The record drops the answered requests before the task resumes: a task woken first could finish and have
        // its terminal status overwritten by this change, and a poll in between would show an answered request.
        synchronized (run) {
            Map<String, JsonNode> answered = new java.util.LinkedHashMap<>();
            for (Map.Entry<String, JsonNode> answer : r.properties()) {
                CompletableFuture<JsonNode> waiting = run.answers.get(answer.getKey());
                if (waiting != null && !waiting.isDone() && answer.getValue().isObject()) {
                    answered.put(answer.getKey(), answer.getValue());
                }
            }
            if (answered.isEmpty()) {
                return Json.object();
            }
            update(run, t -> {
                if (t.inputRequests() == null) {
                    return t;
                }
                ObjectNode left = t.inputRequests().deepCopy();
                left.remove(answered.keySet());
                return left.isEmpty() ? t.withStatus(TaskStatus.WORKING, null, clock.instant())
                        : t.withInputRequests(left, clock.instant());
            });
            answered.forEach((key, answer) -> run.answers.get(key).complete(answer));
        }
        return Json.object();
    }

    /** Another node's client cancelled a task: if it runs here, its handler stops (its record says cancelled already). */
    void cancelledElsewhere(String taskId) {
        Running run = running.get(taskId);
        if (run != null) {
            cancelRunning(run, "cancelled by the client");
        }
    }

    /** Cancels the tasks a closing legacy session owns. */
    void ownerGone(DefaultServerChannel channel) {
        if (!channel.hasOwnerKey()) {
            // owner(): a channel owns tasks only through its owner key, so one that never made it (every stateless
            // request's channel) owns none, and closing it need not scan the running tasks.
            return;
        }
        for (Running run : running.values()) {
            if (run.channel == channel && !run.owner.equals(STATELESS_OWNER)) {
                update(run, r -> r.completed(TaskStatus.CANCELLED, null, null, clock.instant()));
                cancelRunning(run, "session closed");
            }
        }
    }

    void requireExtension(Exchange e) {
        if (e.modern() && !e.clientCapabilities.path("extensions").has(EXTENSION)) {
            throw missingExtension();
        }
        if (!e.modern() && e.version != ProtocolVersion.V2025_11_25) {
            throw McpException.methodNotFound(e.method());
        }
    }

    private TaskRecord find(Exchange e) {
        requireExtension(e);
        String taskId = Methods.requireString(e.params, "taskId");
        return store.find(taskId).filter(t -> t.owner().equals(owner(e)))
                .orElseThrow(() -> McpException.invalidParams("Unknown task: " + taskId));
    }

    private static String owner(Exchange e) {
        return e.modern() ? STATELESS_OWNER : e.channel.ownerKey();
    }

    private void cancelRunning(Running run, String reason) {
        if (run.cancellation.cancel(reason)) {
            Thread t = run.thread;
            if (t != null) {
                t.interrupt();
            }
        }
    }

    private String newId() {
        byte[] bytes = new byte[16];
        random.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    private static McpException missingExtension() {
        ObjectNode data = Json.object();
        data.putObject("requiredCapabilities").putObject("extensions").putObject(EXTENSION);
        return new McpException(ErrorCodes.MISSING_CLIENT_CAPABILITY, "Missing required client capability: extension " + EXTENSION, data);
    }

    static ObjectNode legacyTask(TaskRecord t) {
        return task(t, "ttl", "pollInterval");
    }

    static ObjectNode modernTask(TaskRecord t) {
        ObjectNode n = task(t, "ttlMs", "pollIntervalMs");
        if (t.status() == TaskStatus.COMPLETED && t.result() != null) {
            n.set("result", t.result());
        }
        if (t.status() == TaskStatus.FAILED && t.error() != null) {
            ObjectNode error = n.putObject("error");
            error.put("code", t.error().code());
            error.put("message", t.error().message());
            if (t.error().data() != null) {
                error.set("data", t.error().data());
            }
        }
        if (t.status() == TaskStatus.INPUT_REQUIRED && t.inputRequests() != null) {
            n.set("inputRequests", t.inputRequests());
        }
        return n;
    }

    /** The fields both eras share; the 2026-07-28 extension renamed ttl and pollInterval. */
    private static ObjectNode task(TaskRecord t, String ttlField, String pollField) {
        ObjectNode n = Json.object();
        n.put("taskId", t.taskId());
        n.put("status", t.status().wire());
        if (t.statusMessage() != null) {
            n.put("statusMessage", t.statusMessage());
        }
        n.put("createdAt", t.createdAt().toString());
        n.put("lastUpdatedAt", t.lastUpdatedAt().toString());
        if (t.ttlMs() == null) {
            n.putNull(ttlField);
        } else {
            n.put(ttlField, t.ttlMs());
        }
        n.put(pollField, t.pollIntervalMs());
        return n;
    }
}
