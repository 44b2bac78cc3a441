package dev.tern.bench;

import java.util.Objects;

/**
 * What became of one request.
 *
 * @param status ok, or the kind of failure
 * @param detail a short description of a failure (an error message, status line, JSON-RPC error); empty when ok
 * @param sentNanos {@link System#nanoTime()} when the request's first byte was handed to the connection, 0 if unknown
 * @param firstByteNanos {@link System#nanoTime()} when the reply's first byte (or its head) arrived, 0 if unknown
 * @param serverTiming the server's split of the request, when it sent one; may be null
 */
public record Outcome(Status status, String detail, long sentNanos, long firstByteNanos, ServerTiming serverTiming) {

    /** Ok, or why not. Every status but {@link #OK} counts as an error, reported by kind. */
    public enum Status {
        /** A valid, successful reply. */
        OK("ok"),
        /** The reply was a JSON-RPC error. */
        JSONRPC_ERROR("jsonrpc_error"),
        /** A tool result with {@code isError: true}. */
        TOOL_ERROR("tool_error"),
        /** An HTTP status other than 2xx without a JSON-RPC error in the body. */
        HTTP_STATUS("http_status"),
        /** The request failed on the way: connection refused or reset, unreadable reply. No latency is recorded. */
        TRANSPORT("transport"),
        /** No reply within the request timeout. No latency is recorded. */
        TIMEOUT("timeout"),
        /** Not sent: the open-loop scheduler found the in-flight bound reached. No latency is recorded. */
        OVERFLOW("overflow");

        private final String key;

        Status(String key) {
            this.key = key;
        }

        /** The name used in results and reports. */
        public String key() {
            return key;
        }

        /** Whether the server answered, so the request's latency means something. */
        public boolean answered() {
            return this == OK || this == JSONRPC_ERROR || this == TOOL_ERROR || this == HTTP_STATUS;
        }
    }

    public Outcome {
        Objects.requireNonNull(status, "status");
        detail = detail == null ? "" : detail;
    }

    public static Outcome ok() {
        return new Outcome(Status.OK, "", 0, 0, null);
    }

    public static Outcome failed(Status status, String detail) {
        return new Outcome(status, detail, 0, 0, null);
    }

    /** A request that failed with {@code error}: {@link Status#TIMEOUT} for a timeout, else {@link Status#TRANSPORT}. */
    public static Outcome transport(Throwable error) {
        Throwable cause = error;
        while ((cause instanceof java.util.concurrent.CompletionException
                || cause instanceof java.util.concurrent.ExecutionException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        String message = cause.getMessage();
        return failed(cause instanceof java.util.concurrent.TimeoutException ? Status.TIMEOUT : Status.TRANSPORT,
                cause.getClass().getSimpleName() + (message == null ? "" : ": " + message));
    }

    /** The same outcome with the request's timings attached. */
    public Outcome withTimings(long sent, long firstByte, ServerTiming timing) {
        return new Outcome(status, detail, sent, firstByte, timing);
    }

    public boolean isOk() {
        return status == Status.OK;
    }
}
