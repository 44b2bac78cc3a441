package dev.tern.server;

import java.time.Instant;

import dev.tern.protocol.JsonRpcError;

import tools.jackson.databind.node.ObjectNode;

import org.jspecify.annotations.Nullable;

/**
 * A task as a {@link TaskStore} keeps it. Immutable; the {@code with*} methods return updated copies.
 *
 * @param owner who may see the task: the legacy session that created it, or a shared scope for stateless requests
 * @param ttlMs how long the task is kept after creation, or {@code null} for no limit
 * @param result the request's result once completed (also a failed tool result with {@code isError})
 * @param error the JSON-RPC error once failed with one
 * @param inputRequests the outstanding input requests while {@link TaskStatus#INPUT_REQUIRED}
 */
public record TaskRecord(String taskId, String owner, TaskStatus status, @Nullable String statusMessage,
        Instant createdAt, Instant lastUpdatedAt, @Nullable Long ttlMs, long pollIntervalMs, @Nullable ObjectNode result,
        @Nullable JsonRpcError error, @Nullable ObjectNode inputRequests) {

    public TaskRecord withStatus(TaskStatus newStatus, @Nullable String message, Instant now) {
        return new TaskRecord(taskId, owner, newStatus, message, createdAt, now, ttlMs, pollIntervalMs, result, error,
                newStatus == TaskStatus.INPUT_REQUIRED ? inputRequests : null);
    }

    public TaskRecord withInputRequests(ObjectNode requests, Instant now) {
        return new TaskRecord(taskId, owner, TaskStatus.INPUT_REQUIRED, statusMessage, createdAt, now, ttlMs,
                pollIntervalMs, result, error, requests);
    }

    public TaskRecord completed(TaskStatus terminal, @Nullable ObjectNode newResult, @Nullable JsonRpcError newError,
            Instant now) {
        return new TaskRecord(taskId, owner, terminal, statusMessage, createdAt, now, ttlMs, pollIntervalMs, newResult,
                newError, null);
    }

    public boolean expired(Instant now) {
        return ttlMs != null && createdAt.plusMillis(ttlMs).isBefore(now);
    }
}
