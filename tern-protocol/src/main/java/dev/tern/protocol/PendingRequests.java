package dev.tern.protocol;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

import tools.jackson.databind.JsonNode;

/**
 * Correlates the requests one side sends with the responses that come back, with a timeout each. Ids are
 * integers unique for the lifetime of this object. Thread-safe.
 */
public final class PendingRequests {
    private final ScheduledExecutorService scheduler;
    private final AtomicLong nextId = new AtomicLong(1);
    private final Map<RequestId, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();
    /** What the ids start with, or null for numbers. */
    private final String idPrefix;

    public PendingRequests(ScheduledExecutorService scheduler) {
        this(scheduler, null);
    }

    /**
     * Requests whose ids are strings starting with {@code idPrefix}, so that they differ from those of other
     * senders on the same session (the other nodes of a cluster); null: numbered ids.
     */
    public PendingRequests(ScheduledExecutorService scheduler, String idPrefix) {
        this.scheduler = scheduler;
        this.idPrefix = idPrefix;
    }

    /** Whether a request with that id is waiting for its response. */
    public boolean awaits(RequestId id) {
        return pending.containsKey(id);
    }

    /** A request awaiting its response. */
    public record Outgoing(RequestId id, CompletableFuture<JsonNode> response) {
    }

    /**
     * Registers a new request. Its future completes with the result, or exceptionally with an
     * {@link McpException} for an error response, a {@link TimeoutException} after {@code timeout}, or whatever
     * {@link #failAll} is given. However it completes (the caller may cancel it too), the request is forgotten.
     */
    public Outgoing register(Duration timeout) {
        RequestId id = idPrefix == null ? RequestId.of(nextId.getAndIncrement())
                : RequestId.of(idPrefix + nextId.getAndIncrement());
        CompletableFuture<JsonNode> future = new CompletableFuture<>();
        // registered before the timer exists: a timer that fires at once must find the request
        pending.put(id, future);
        ScheduledFuture<?> timer;
        try {
            timer = scheduler.schedule(() -> {
                pending.remove(id, future);
                future.completeExceptionally(new TimeoutException("No response to request " + id + " within " + timeout));
            }, timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (RuntimeException e) {
            pending.remove(id, future);
            throw e;
        }
        future.whenComplete((v, e) -> {
            pending.remove(id, future);
            timer.cancel(false);
        });
        return new Outgoing(id, future);
    }

    /** Completes the matching request. Returns false when no request with that id is waiting. */
    public boolean complete(JsonRpcResponse response) {
        if (response.id() == null) {
            return false;
        }
        CompletableFuture<JsonNode> future = pending.remove(response.id());
        if (future == null) {
            return false;
        }
        return switch (response) {
            case JsonRpcResult r -> future.complete(r.result());
            case JsonRpcFailure f -> future.completeExceptionally(
                    new McpException(f.error().code(), f.error().message(), f.error().data()));
        };
    }

    public void failAll(Throwable cause) {
        for (RequestId id : pending.keySet()) {
            CompletableFuture<JsonNode> future = pending.remove(id);
            if (future != null) {
                future.completeExceptionally(cause);
            }
        }
    }

    public int size() {
        return pending.size();
    }
}
