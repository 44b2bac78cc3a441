package dev.tern.protocol.model;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonProperty;

import tools.jackson.databind.JsonNode;

/**
 * The result of a tool call the model asked for with {@link ToolUseContent}, in a sampling message (2025-11-25 and
 * later).
 */
public record ToolResultContent(String toolUseId, List<Content> content, JsonNode structuredContent, Boolean isError,
        @JsonProperty("_meta") Map<String, Object> meta) implements Content {
}
