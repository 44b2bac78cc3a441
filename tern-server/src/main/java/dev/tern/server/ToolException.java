package dev.tern.server;

import org.jspecify.annotations.Nullable;

/**
 * Thrown by a tool to report a failure the model should read: it becomes a result with {@code isError: true}
 * and this message. Any other exception is reported without its message, which may hold internals.
 */
public class ToolException extends RuntimeException {
    public ToolException(String message) {
        super(message, null, false, false);
    }

    public ToolException(String message, @Nullable Throwable cause) {
        super(message, cause, false, false);
    }
}
