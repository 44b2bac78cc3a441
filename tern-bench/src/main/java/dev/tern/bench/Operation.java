package dev.tern.bench;

import java.util.Objects;

/**
 * One request of a workload: what to ask the target.
 *
 * @param kind what kind of request
 * @param name the tool name ({@link Kind#CALL_TOOL}), resource URI ({@link Kind#READ_RESOURCE}), or request path
 *     ({@link Kind#REST}, may be empty); empty for {@link Kind#LIST_TOOLS}
 * @param arguments JSON text: the tool's arguments, or the REST request body; empty for none
 */
public record Operation(Kind kind, String name, String arguments) {
    /** The kinds of request a target knows how to send. */
    public enum Kind {
        CALL_TOOL("tools/call"), LIST_TOOLS("tools/list"), READ_RESOURCE("resources/read"), REST("rest");

        private final String label;

        Kind(String label) {
            this.label = label;
        }

        /** The MCP method name, or {@code rest}. */
        public String label() {
            return label;
        }
    }

    public Operation {
        Objects.requireNonNull(kind, "kind");
        name = name == null ? "" : name;
        arguments = arguments == null ? "" : arguments;
    }

    public static Operation callTool(String tool, String argumentsJson) {
        return new Operation(Kind.CALL_TOOL, tool, argumentsJson);
    }

    public static Operation listTools() {
        return new Operation(Kind.LIST_TOOLS, "", "");
    }

    public static Operation readResource(String uri) {
        return new Operation(Kind.READ_RESOURCE, uri, "");
    }

    /** A plain HTTP request: GET without a body, POST with one. */
    public static Operation rest(String body) {
        return new Operation(Kind.REST, "", body);
    }

    @Override
    public String toString() {
        return switch (kind) {
            case CALL_TOOL -> "tools/call " + name + (arguments.isEmpty() ? "" : " " + arguments);
            case LIST_TOOLS -> "tools/list";
            case READ_RESOURCE -> "resources/read " + name;
            case REST -> arguments.isEmpty() ? "GET" : "POST " + arguments;
        };
    }
}
