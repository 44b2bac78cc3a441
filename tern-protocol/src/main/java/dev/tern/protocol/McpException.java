package dev.tern.protocol;

import tools.jackson.databind.JsonNode;

import org.jspecify.annotations.Nullable;

/**
 * A failure that crosses the wire as a JSON-RPC error with the given code, message and data. Anything else a
 * handler throws is reported as a sanitized internal error.
 */
public class McpException extends RuntimeException {
    private final int code;
    private final transient @Nullable JsonNode data;

    public McpException(int code, String message) {
        this(code, message, null);
    }

    public McpException(int code, String message, @Nullable JsonNode data) {
        super(message, null, false, false);
        this.code = code;
        this.data = data;
    }

    public int code() {
        return code;
    }

    public @Nullable JsonNode data() {
        return data;
    }

    public JsonRpcError toError() {
        return new JsonRpcError(code, getMessage(), data);
    }

    public static McpException invalidParams(String message) {
        return new McpException(ErrorCodes.INVALID_PARAMS, message);
    }

    public static McpException invalidRequest(String message) {
        return new McpException(ErrorCodes.INVALID_REQUEST, message);
    }

    public static McpException methodNotFound(String method) {
        return new McpException(ErrorCodes.METHOD_NOT_FOUND, "Method not found: " + method);
    }
}
