package dev.tern.protocol.model;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonProperty;

import org.jspecify.annotations.Nullable;

/** A prompt as listed by {@code prompts/list}. */
public record PromptDefinition(String name, @Nullable String title, @Nullable String description,
        @Nullable List<PromptArgument> arguments, @Nullable List<Icon> icons,
        @JsonProperty("_meta") @Nullable Map<String, Object> meta) {
}
