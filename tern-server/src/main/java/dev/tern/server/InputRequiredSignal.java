package dev.tern.server;

import tools.jackson.databind.node.ObjectNode;

/** Ends a 2026-07-28 handler run that needs input from the client; becomes an {@code input_required} result. */
final class InputRequiredSignal extends RuntimeException {
    final String key;
    final transient ObjectNode inputRequest;

    InputRequiredSignal(String key, ObjectNode inputRequest) {
        super("input required: " + key, null, false, false);
        this.key = key;
        this.inputRequest = inputRequest;
    }
}
