package dev.tern.server;

import dev.tern.protocol.model.CallToolResult;

import tools.jackson.databind.node.ObjectNode;

/** Serves {@code tools/call} for one tool with the raw, already validated arguments. Runs on a virtual thread. */
@FunctionalInterface
public interface ToolHandler {
    CallToolResult call(RequestContext context, ObjectNode arguments) throws Exception;
}
