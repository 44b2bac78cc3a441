package dev.tern.protocol.model;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonProperty;

/** A prompt as listed by {@code prompts/list}. */
public record PromptDefinition(String name, String title, String description, List<PromptArgument> arguments, List<Icon> icons,
        @JsonProperty("_meta") Map<String, Object> meta) {
}
