package dev.tern.protocol;

import tools.jackson.databind.JsonNode;

/**
 * A failure that crosses the wire as a JSON-RPC error with the given code, message and data. Anything else a
 * handler throws is reported as a sanitized internal error.
 */
public class McpException extends RuntimeException {
    private final int code;
    private final transient JsonNode data;

    public McpException(int code, String message) {
        this(code, message, null);
    }

    public McpException(int code, String message, JsonNode data) {
        super(message, null, false, false);
        this.code = code;
        this.data = data;
    }

    public int code() {
        return code;
    }

    public JsonNode data() {
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
