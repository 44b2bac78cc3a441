package dev.tern.client;

import dev.tern.client.http.HttpReply;
import dev.tern.protocol.JsonRpcError;
import dev.tern.protocol.McpException;

import tools.jackson.databind.JsonNode;

import org.jspecify.annotations.Nullable;

/**
 * The JSON-RPC response to one request with how it travelled: exactly one of {@code result} and {@code error}, the
 * HTTP reply it came in (status, headers such as {@code Server-Timing}; {@code null} over stdio), and
 * {@link System#nanoTime()} readings of when the request was sent, the first byte of the answer arrived, and the
 * answer was complete.
 */
public record McpReply(@Nullable JsonNode result, @Nullable JsonRpcError error, @Nullable HttpReply http,
        long sentNanos, long firstByteNanos, long completeNanos) {

    public boolean isError() {
        return error != null;
    }

    /** The result, or throws the error as an {@link McpException}. */
    public JsonNode resultOrThrow() {
        if (error != null) {
            throw new McpException(error.code(), error.message(), error.data());
        }
        return result;
    }

    /** An HTTP header of the reply, or {@code null} (always over stdio). */
    public @Nullable String header(String name) {
        return http == null ? null : http.header(name);
    }

    /** The HTTP status, or 0 over stdio. */
    public int httpStatus() {
        return http == null ? 0 : http.status();
    }
}
