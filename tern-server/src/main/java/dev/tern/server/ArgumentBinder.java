package dev.tern.server;

import java.util.Map;

import dev.tern.protocol.Json;
import dev.tern.protocol.McpException;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.JsonNode;
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

    static <A> A bind(JsonNode value, JavaType type) {
        try {
            return Json.mapper().treeToValue(value, type);
        } catch (JacksonException e) {
            throw new ToolException("Invalid arguments: " + e.getOriginalMessage());
        }
    }

    static McpException invalid(String what, JacksonException e) {
        return McpException.invalidParams("Invalid " + what + ": " + e.getOriginalMessage());
    }
}
