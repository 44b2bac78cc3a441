package dev.tern.protocol;

import java.util.Objects;

import tools.jackson.databind.node.ObjectNode;

import org.jspecify.annotations.Nullable;

/**
 * A request: it has an id and expects exactly one response.
 *
 * @param params the params object, or {@code null} when the message had none
 */
public record JsonRpcRequest(RequestId id, String method, @Nullable ObjectNode params) implements JsonRpcMessage {
    public JsonRpcRequest {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(method, "method");
    }
}
