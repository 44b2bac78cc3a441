package dev.tern.server;

import tools.jackson.databind.node.ObjectNode;

/** Ends a 2026-07-28 handler run that needs input from the client; becomes an {@code input_required} result. */
final class InputRequiredSignal extends RuntimeException {
    final transient java.util.Map<String, ObjectNode> inputRequests;

    InputRequiredSignal(java.util.Map<String, ObjectNode> inputRequests) {
        super("input required: " + inputRequests.keySet(), null, false, false);
        this.inputRequests = inputRequests;
    }
}
