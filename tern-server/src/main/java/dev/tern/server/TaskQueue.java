package dev.tern.server;

import java.util.Objects;

import dev.tern.protocol.Json;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import org.jspecify.annotations.Nullable;

/**
 * Where task-augmented tool calls wait to run, so that a task outlives the node that accepted it: a shared queue
 * hands a task whose node died, or shut down, to another node. Without one ({@link McpServer.Builder#taskQueue}
 * unset) a task runs on the node that accepted it and nowhere else. The server {@link #start}s the queue when it is
 * built and {@link #close}s it when it closes. Implementations must be thread-safe.
 */
public interface TaskQueue extends AutoCloseable {

    /** Runs one task and returns once its final status is stored; a throw leaves the task to be run again. */
    @FunctionalInterface
    interface Runner {
        void run(String taskId, Call call) throws Exception;
    }

    /**
     * Called once, by the server being built: from now on the queue runs tasks, this node's and others', with
     * {@code runner}.
     */
    void start(Runner runner);

    /**
     * Queues a task whose record is stored. The node that accepted it normally runs it; another node runs it when
     * this one stops before the task ends.
     *
     * @throws StoreUnavailableException when the queue cannot take the task now
     */
    void submit(String taskId, Call call);

    /**
     * Stops taking tasks and gives back the tasks running here unfinished (their threads are interrupted), so that
     * other nodes run them soon. A task that ends once the queue is closing, uncancelled, is handed back rather than
     * finished, whatever its interrupted handler returned.
     */
    @Override
    void close();

    /** Whether {@link #close} was called. */
    boolean isClosed();

    /**
     * What it takes to run a task on any node: the tool, its arguments and the request's {@code _meta}, the protocol
     * revision it was called in, the task's owner, and who called (the principal's name, and the caller's name,
     * scopes and claims; not its token, which is never kept).
     */
    record Call(String tool, ObjectNode arguments, ObjectNode meta, String protocolVersion, String owner,
            @Nullable String principal, @Nullable ObjectNode caller) {
        public Call {
            Objects.requireNonNull(tool, "tool");
            Objects.requireNonNull(arguments, "arguments");
            Objects.requireNonNull(meta, "meta");
            Objects.requireNonNull(protocolVersion, "protocolVersion");
            Objects.requireNonNull(owner, "owner");
        }

        /** The call as one JSON object, what a shared queue keeps. */
        public ObjectNode toJson() {
            ObjectNode o = Json.object();
            o.put("tool", tool);
            o.set("arguments", arguments);
            o.set("meta", meta);
            o.put("protocolVersion", protocolVersion);
            o.put("owner", owner);
            if (principal != null) {
                o.put("principal", principal);
            }
            if (caller != null) {
                o.set("caller", caller);
            }
            return o;
        }

        /** Reads what {@link #toJson()} wrote. */
        public static Call fromJson(JsonNode o) {
            return new Call(o.path("tool").asString(), o.get("arguments") instanceof ObjectNode a ? a : Json.object(),
                    o.get("meta") instanceof ObjectNode m ? m : Json.object(), o.path("protocolVersion").asString(),
                    o.path("owner").asString(), o.get("principal") instanceof JsonNode p && p.isString() ? p.asString() : null,
                    o.get("caller") instanceof ObjectNode c ? c : null);
        }
    }
}
