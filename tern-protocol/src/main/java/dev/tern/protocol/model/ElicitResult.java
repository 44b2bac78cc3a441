package dev.tern.protocol.model;

import java.util.Map;

import com.fasterxml.jackson.annotation.JsonProperty;

import tools.jackson.databind.node.ObjectNode;

import org.jspecify.annotations.Nullable;

/**
 * The user's answer to an elicitation.
 *
 * @param action "accept", "decline" or "cancel"
 * @param content the submitted form values when accepted (form mode)
 */
public record ElicitResult(String action, @Nullable ObjectNode content,
        @JsonProperty("_meta") @Nullable Map<String, Object> meta) {

    public ElicitResult(String action, @Nullable ObjectNode content) {
        this(action, content, null);
    }

    public boolean accepted() {
        return "accept".equals(action);
    }
}
