package dev.tern.protocol.model;

import tools.jackson.databind.node.ObjectNode;

/**
 * The user's answer to an elicitation.
 *
 * @param action "accept", "decline" or "cancel"
 * @param content the submitted form values when accepted (form mode)
 */
public record ElicitResult(String action, ObjectNode content) {
    public boolean accepted() {
        return "accept".equals(action);
    }
}
