package dev.tern.protocol.model;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonProperty;

import org.jspecify.annotations.Nullable;

public record GetPromptResult(@Nullable String description, List<PromptMessage> messages,
        @JsonProperty("_meta") @Nullable Map<String, Object> meta) {
    public static GetPromptResult of(@Nullable String description, PromptMessage... messages) {
        return new GetPromptResult(description, List.of(messages), null);
    }
}
