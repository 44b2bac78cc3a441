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
    private final Map<RequestId, Pending> pending = new ConcurrentHashMap<>();

    public PendingRequests(ScheduledExecutorService scheduler) {
        this.scheduler = scheduler;
    }

    /** A request awaiting its response. */
    public record Outgoing(RequestId id, CompletableFuture<JsonNode> response) {
    }

    private record Pending(CompletableFuture<JsonNode> future, ScheduledFuture<?> timer) {
    }

    /**
     * Registers a new request. Its future completes with the result, or exceptionally with an
     * {@link McpException} for an error response, a {@link TimeoutException} after {@code timeout}, or whatever
     * {@link #failAll} is given.
     */
    public Outgoing register(Duration timeout) {
        RequestId id = RequestId.of(nextId.getAndIncrement());
        CompletableFuture<JsonNode> future = new CompletableFuture<>();
        ScheduledFuture<?> timer = scheduler.schedule(() -> {
            Pending p = pending.remove(id);
            if (p != null) {
                p.future.completeExceptionally(new TimeoutException("No response to request " + id + " within " + timeout));
            }
        }, timeout.toNanos(), TimeUnit.NANOSECONDS);
        pending.put(id, new Pending(future, timer));
        future.whenComplete((v, e) -> {
            Pending p = pending.remove(id);
            if (p != null) {
                p.timer.cancel(false);
            }
        });
        return new Outgoing(id, future);
    }

    /** Completes the matching request. Returns false when no request with that id is waiting. */
    public boolean complete(JsonRpcResponse response) {
        if (response.id() == null) {
            return false;
        }
        Pending p = pending.remove(response.id());
        if (p == null) {
            return false;
        }
        p.timer.cancel(false);
        switch (response) {
            case JsonRpcResult r -> p.future.complete(r.result());
            case JsonRpcFailure f -> p.future.completeExceptionally(
                    new McpException(f.error().code(), f.error().message(), f.error().data()));
        }
        return true;
    }

    public void failAll(Throwable cause) {
        for (RequestId id : pending.keySet()) {
            Pending p = pending.remove(id);
            if (p != null) {
                p.timer.cancel(false);
                p.future.completeExceptionally(cause);
            }
        }
    }

    public int size() {
        return pending.size();
    }
}
