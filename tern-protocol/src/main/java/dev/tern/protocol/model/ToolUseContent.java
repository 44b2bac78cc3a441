package dev.tern.protocol.model;

import java.util.Map;

import com.fasterxml.jackson.annotation.JsonProperty;

import tools.jackson.databind.node.ObjectNode;

import org.jspecify.annotations.Nullable;

/**
 * A model's request to call a tool, in a sampling message (2025-11-25 and later).
 *
 * @param id identifies this call; the matching {@link ToolResultContent} names it
 * @param input the arguments, matching the tool's input schema
 */
public record ToolUseContent(String id, String name, ObjectNode input,
        @JsonProperty("_meta") @Nullable Map<String, Object> meta) implements Content {
}
