package dev.tern.protocol;

import java.util.Objects;

import tools.jackson.databind.JsonNode;

import org.jspecify.annotations.Nullable;

/**
 * The error object of a JSON-RPC error response.
 *
 * @param data extra information, or {@code null}
 */
public record JsonRpcError(int code, String message, @Nullable JsonNode data) {
    public JsonRpcError {
        Objects.requireNonNull(message, "message");
    }

    public static JsonRpcError of(int code, String message) {
        return new JsonRpcError(code, message, null);
    }
}
