package dev.tern.protocol.model;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonProperty;

import tools.jackson.databind.JsonNode;

import org.jspecify.annotations.Nullable;

/**
 * The result of a tool call the model asked for with {@link ToolUseContent}, in a sampling message (2025-11-25 and
 * later).
 */
public record ToolResultContent(String toolUseId, List<Content> content, @Nullable JsonNode structuredContent,
        @Nullable Boolean isError, @JsonProperty("_meta") @Nullable Map<String, Object> meta) implements Content {
}
