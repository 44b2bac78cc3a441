package dev.tern.protocol;

import java.util.Objects;

import tools.jackson.databind.node.ObjectNode;

import org.jspecify.annotations.Nullable;

/**
 * A notification: no id, never answered.
 *
 * @param params the params object, or {@code null} when the message had none
 */
public record JsonRpcNotification(String method, @Nullable ObjectNode params) implements JsonRpcMessage {
    public JsonRpcNotification {
        Objects.requireNonNull(method, "method");
    }
}
