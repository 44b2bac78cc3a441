package dev.tern.protocol;

import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * An error response.
 *
 * @param id the id of the failed request, or {@code null} when it could not be determined
 */
public record JsonRpcFailure(@Nullable RequestId id, JsonRpcError error) implements JsonRpcResponse {
    public JsonRpcFailure {
        Objects.requireNonNull(error, "error");
    }
}
