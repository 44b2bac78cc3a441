package dev.tern.client;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import dev.tern.protocol.JsonRpcNotification;
import dev.tern.protocol.JsonRpcRequest;
import dev.tern.protocol.ProtocolVersion;

/** Carries JSON-RPC messages to one server: Streamable HTTP or a child process's stdio. */
interface McpTransport extends AutoCloseable {

    /**
     * Sends a request and completes with its response (a JSON-RPC error is a reply too); fails with
     * {@link McpClientException} when no response came. {@code version} is the era's version ({@code null} before a
     * legacy session exists); {@code extraHeaders} are header names and values, alternating (HTTP only).
     */
    CompletableFuture<McpReply> send(JsonRpcRequest request, ProtocolVersion version, List<String> extraHeaders);

    /** Sends a notification; completes when it was delivered (HTTP: accepted). */
    CompletableFuture<Void> notify(JsonRpcNotification notification, ProtocolVersion version);

    /** A legacy session was set up with this version. */
    default void legacySession(ProtocolVersion version) {
    }

    /** Whether HTTP headers carry request metadata (x-mcp-header parameters matter). */
    boolean http();

    @Override
    void close();
}
