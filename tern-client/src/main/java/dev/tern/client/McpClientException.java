package dev.tern.client;

import org.jspecify.annotations.Nullable;

/**
 * A request that got no JSON-RPC response: the connection or process failed, or the server answered with something
 * that is not JSON-RPC (an HTTP error page, a malformed body). JSON-RPC error responses fail with
 * {@link dev.tern.protocol.McpException} instead, carrying the error's code, message and data.
 */
public class McpClientException extends RuntimeException {
    private final int httpStatus;

    public McpClientException(String message) {
        this(message, 0, null);
    }

    public McpClientException(String message, @Nullable Throwable cause) {
        this(message, 0, cause);
    }

    public McpClientException(String message, int httpStatus, @Nullable Throwable cause) {
        super(message, cause);
        this.httpStatus = httpStatus;
    }

    /** The HTTP status of the reply that was not JSON-RPC, or 0. */
    public int httpStatus() {
        return httpStatus;
    }
}
