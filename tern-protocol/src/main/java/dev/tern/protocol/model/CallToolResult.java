package dev.tern.protocol.model;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonProperty;

import tools.jackson.databind.JsonNode;

import org.jspecify.annotations.Nullable;

/** The result of {@code tools/call}. */
public record CallToolResult(List<Content> content, @Nullable JsonNode structuredContent, @Nullable Boolean isError,
        @JsonProperty("_meta") @Nullable Map<String, Object> meta) {

    public static CallToolResult of(Content... content) {
        return new CallToolResult(List.of(content), null, null, null);
    }

    public static CallToolResult text(String text) {
        return of(Content.text(text));
    }

    /** A tool execution error the model can read and act on. */
    public static CallToolResult error(String message) {
        return new CallToolResult(List.of(Content.text(message)), null, true, null);
    }
}
