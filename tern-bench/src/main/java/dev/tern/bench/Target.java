package dev.tern.bench;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;

/**
 * What the bench loads: an MCP server over HTTP or stdio, a REST endpoint, or anything that answers requests.
 * Implementations must allow concurrent calls and validate replies (a JSON-RPC error or a tool result with
 * {@code isError} is not {@link Outcome.Status#OK}).
 */
public interface Target extends AutoCloseable {

    /**
     * Prepares the target (opens a session, upgrades a connection, starts a process). Called once before the first
     * {@link #call}; failures end the run.
     */
    default void open(ConnectionObserver observer) throws Exception {
    }

    /**
     * Starts one request and returns at once. The future completes with the outcome; completing exceptionally counts
     * as a {@link Outcome.Status#TRANSPORT} failure.
     */
    CompletableFuture<Outcome> call(Operation operation);

    /** A short description for reports, e.g. {@code MCP 2026-07-28 http://127.0.0.1:8080/mcp (HTTP/1.1)}. */
    String describe();

    /** Counts what the server served from its result cache, for targets that can tell; null otherwise. */
    default CacheTally cacheTally() {
        return null;
    }

    /**
     * The one I/O thread the target's connections run on, if it has a single one; null otherwise. The runner then
     * paces and chains requests on that thread, so a request costs no hand-off between threads (no wake-up).
     */
    default ScheduledExecutorService ioThread() {
        return null;
    }

    /** The local process serving the target, when the target knows it (a spawned stdio server); -1 otherwise. */
    default long pid() {
        return -1;
    }

    /** Releases connections or stops the spawned process. */
    @Override
    default void close() {
    }
}
