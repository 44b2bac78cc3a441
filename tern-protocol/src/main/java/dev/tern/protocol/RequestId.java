package dev.tern.protocol;

import java.util.Objects;

/**
 * A JSON-RPC request id. MCP allows strings and integers only; {@code null} is never an id.
 */
public sealed interface RequestId permits RequestId.NumberId, RequestId.StringId {

    static RequestId of(long value) {
        return new NumberId(value);
    }

    static RequestId of(String value) {
        return new StringId(value);
    }

    /** An integer id. */
    record NumberId(long value) implements RequestId {
        @Override
        public String toString() {
            return Long.toString(value);
        }
    }

    /** A string id. */
    record StringId(String value) implements RequestId {
        public StringId {
            Objects.requireNonNull(value, "value");
        }

        @Override
        public String toString() {
            return '"' + value + '"';
        }
    }
}
