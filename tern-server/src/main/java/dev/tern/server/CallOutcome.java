package dev.tern.server;

import java.util.List;
import java.util.Objects;

import tools.jackson.databind.node.ObjectNode;

/**
 * What came of a call made through {@link McpServer#callTool} or {@link McpServer#readResource}, outside any MCP
 * session: the result, or why there is none.
 */
public sealed interface CallOutcome {

    /**
     * The handler ran. For a tool, {@code result} is the {@code tools/call} result ({@code content},
     * {@code structuredContent}, {@code isError}); for a resource, the {@code resources/read} result ({@code contents}).
     */
    record Done(ObjectNode result) implements CallOutcome {
        public Done {
            Objects.requireNonNull(result, "result");
        }

        /** Whether a tool reported that it failed ({@code isError: true}). */
        public boolean isError() {
            return result.path("isError").asBoolean(false);
        }
    }

    /** No tool of that name, or no resource at that URI. */
    record NotFound(String message) implements CallOutcome {
    }

    /** The arguments do not match the tool's input schema (one line per violation), or the handler rejected them. */
    record InvalidArguments(List<String> violations) implements CallOutcome {
        public InvalidArguments {
            violations = List.copyOf(violations);
        }
    }

    /**
     * The handler needs what only an MCP client offers: it asked for elicitation, sampling or roots, or the tool runs
     * only as an MCP task.
     */
    record NeedsClient(String message) implements CallOutcome {
    }

    /** The call did not finish: it timed out, was cancelled, or failed outside the handler's own error reporting. */
    record Failed(String message) implements CallOutcome {
    }
}
