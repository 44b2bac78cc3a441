package dev.tern.client;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

import dev.tern.protocol.ErrorCodes;
import dev.tern.protocol.Json;
import dev.tern.protocol.JsonRpcError;
import dev.tern.protocol.JsonRpcFailure;
import dev.tern.protocol.JsonRpcMessage;
import dev.tern.protocol.JsonRpcNotification;
import dev.tern.protocol.JsonRpcRequest;
import dev.tern.protocol.JsonRpcResponse;
import dev.tern.protocol.JsonRpcResult;
import dev.tern.protocol.RequestId;

/**
 * The requests a message-stream transport (stdio, WebSocket) has sent and still waits for, matched to their responses
 * by id.
 */
final class PendingRequests {
    private record Pending(CompletableFuture<McpReply> future, long sentNanos) {
    }

    private final Map<RequestId, Pending> pending = new ConcurrentHashMap<>();

    void add(RequestId id, CompletableFuture<McpReply> future, long sentNanos) {
        pending.put(id, new Pending(future, sentNanos));
    }

    /** Forgets the request; true when it was still waiting. */
    boolean remove(RequestId id) {
        return pending.remove(id) != null;
    }

    /**
     * Takes one message from the server: a response completes its request, a notification goes to
     * {@code notifications}, and a request from the server gets {@code answer}ed (ping, or -32601: this client serves
     * nothing else).
     */
    void receive(JsonRpcMessage message, long receivedNanos, Consumer<JsonRpcNotification> notifications,
            Consumer<JsonRpcMessage> answer) {
        switch (message) {
            case JsonRpcResponse r -> {
                Pending p = r.id() == null ? null : pending.remove(r.id());
                if (p != null) {
                    p.future().complete(switch (r) {
                        case JsonRpcResult ok -> new McpReply(ok.result(), null, null, p.sentNanos(), receivedNanos,
                                receivedNanos);
                        case JsonRpcFailure f -> new McpReply(null, f.error(), null, p.sentNanos(), receivedNanos,
                                receivedNanos);
                    });
                }
            }
            case JsonRpcNotification n -> notifications.accept(n);
            case JsonRpcRequest r -> answer.accept(r.method().equals("ping")
                    ? new JsonRpcResult(r.id(), Json.object())
                    : new JsonRpcFailure(r.id(), JsonRpcError.of(ErrorCodes.METHOD_NOT_FOUND,
                            "Method not found: this client does not support " + r.method())));
        }
    }

    void failAll(McpClientException cause) {
        for (RequestId id : pending.keySet()) {
            Pending p = pending.remove(id);
            if (p != null) {
                p.future().completeExceptionally(cause);
            }
        }
    }
}
