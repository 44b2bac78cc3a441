package dev.tern.protocol.model;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonProperty;

public record GetPromptResult(String description, List<PromptMessage> messages,
        @JsonProperty("_meta") Map<String, Object> meta) {
    public static GetPromptResult of(String description, PromptMessage... messages) {
        return new GetPromptResult(description, List.of(messages), null);
    }
}
