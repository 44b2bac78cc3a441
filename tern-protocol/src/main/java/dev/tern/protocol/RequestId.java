package dev.tern.protocol;

import java.util.Objects;

import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.JsonNode;

/**
 * A JSON-RPC request id. MCP allows strings and integers only; {@code null} is never an id.
 *
 * <p>The records write out {@code equals} and {@code hashCode}: a record's generated ones are bound on their first
 * call (an {@code invokedynamic} bootstrap that spins method handles, ~7 ms of a server's first request), and an id
 * is compared on every request's answer.
 */
public sealed interface RequestId permits RequestId.NumberId, RequestId.StringId {

    static RequestId of(long value) {
        return new NumberId(value);
    }

    static RequestId of(String value) {
        return new StringId(value);
    }

    /** The id a JSON value stands for: a string, or an integer that fits a long; {@code null} for anything else. */
    static RequestId of(JsonNode node) {
        if (node.isString()) {
            return of(node.stringValue());
        }
        if (node.isIntegralNumber() && node.canConvertToLong()) {
            return of(node.longValue());
        }
        return null;
    }

    /** As {@link #of(JsonNode)}, for the value {@code parser} is at ({@code token}). */
    static RequestId of(JsonParser parser, JsonToken token) {
        if (token == JsonToken.VALUE_STRING) {
            return of(parser.getString());
        }
        if (token == JsonToken.VALUE_NUMBER_INT) {
            JsonParser.NumberType type = parser.getNumberType();
            if (type == JsonParser.NumberType.INT || type == JsonParser.NumberType.LONG) {
                return of(parser.getLongValue());
            }
        }
        return null;
    }

    /** An integer id. */
    record NumberId(long value) implements RequestId {
        @Override
        public boolean equals(Object other) {
            return other instanceof NumberId id && id.value == value;
        }

        @Override
        public int hashCode() {
            return Long.hashCode(value);
        }

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
        public boolean equals(Object other) {
            return other instanceof StringId id && id.value.equals(value);
        }

        @Override
        public int hashCode() {
            return value.hashCode();
        }

        @Override
        public String toString() {
            return '"' + value + '"';
        }
    }
}
