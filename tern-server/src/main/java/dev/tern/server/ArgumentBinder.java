package dev.tern.server;

import java.util.Map;

import dev.tern.protocol.McpException;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/** Binds validated argument objects to Java types. */
final class ArgumentBinder {
    private ArgumentBinder() {
    }

    static ObjectNode applyDefaults(ObjectNode arguments, ObjectNode defaults) {
        if (defaults.isEmpty()) {
            return arguments;
        }
        ObjectNode copy = null;
        for (Map.Entry<String, JsonNode> d : defaults.properties()) {
            if (!arguments.has(d.getKey())) {
                if (copy == null) {
                    copy = arguments.deepCopy();
                }
                copy.set(d.getKey(), d.getValue());
            }
        }
        return copy == null ? arguments : copy;
    }

    /** {@code value} as {@code type}, bound by {@code mapper} unless it is a plain string, integer or boolean. */
    @SuppressWarnings("unchecked")
    static <A> A bind(JsonMapper mapper, JsonNode value, JavaType type) {
        Object plain = plainValue(value, type.getRawClass());
        if (plain != null) {
            return (A) plain;
        }
        try {
            return mapper.treeToValue(value, type);
        } catch (JacksonException e) {
            throw new ToolException("Invalid arguments: " + e.getOriginalMessage());
        }
    }

    /**
     * The value of a string, integer or boolean node bound to its own Java type, as data binding would bind it but
     * without a deserialization context per argument; {@code null} for anything else (data binding decides).
     */
    private static Object plainValue(JsonNode value, Class<?> type) {
        if (type == String.class) {
            return value.isString() ? value.stringValue() : null;
        }
        if (type == Integer.class || type == int.class) {
            return value.isInt() ? value.intValue() : null;
        }
        if (type == Long.class || type == long.class) {
            return value.isIntegralNumber() && value.canConvertToLong() ? value.longValue() : null;
        }
        if (type == Boolean.class || type == boolean.class) {
            return value.isBoolean() ? value.booleanValue() : null;
        }
        return null;
    }

    static McpException invalid(String what, JacksonException e) {
        return McpException.invalidParams("Invalid " + what + ": " + e.getOriginalMessage());
    }
}
