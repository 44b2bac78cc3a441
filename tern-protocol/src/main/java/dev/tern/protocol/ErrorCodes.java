package dev.tern.protocol;

/** The JSON-RPC 2.0 error codes and those MCP adds. */
public final class ErrorCodes {
    public static final int PARSE_ERROR = -32700;
    public static final int INVALID_REQUEST = -32600;
    public static final int METHOD_NOT_FOUND = -32601;
    public static final int INVALID_PARAMS = -32602;
    public static final int INTERNAL_ERROR = -32603;

    /** Resource not found (2025-11-25 and older; the modern era uses {@link #INVALID_PARAMS}). */
    public static final int RESOURCE_NOT_FOUND = -32002;
    /** 2026-07-28: the {@code Mcp-Method}/{@code Mcp-Name} headers disagree with the body. */
    public static final int HEADER_MISMATCH = -32020;
    /** 2026-07-28: the request needs a client capability the client did not declare; {@code data} names it. */
    public static final int MISSING_CLIENT_CAPABILITY = -32021;
    /** 2026-07-28: the requested protocol version is not supported; {@code data.supported} lists ours. */
    public static final int UNSUPPORTED_PROTOCOL_VERSION = -32022;
    /** 2025-11-25: the request cannot go on until the user completes a URL elicitation. */
    public static final int URL_ELICITATION_REQUIRED = -32042;

    private ErrorCodes() {
    }
}
