package dev.tern.protocol;

import java.util.Objects;

import tools.jackson.databind.JsonNode;

/** A successful response. */
public record JsonRpcResult(RequestId id, JsonNode result) implements JsonRpcResponse {
    public JsonRpcResult {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(result, "result");
    }
}
