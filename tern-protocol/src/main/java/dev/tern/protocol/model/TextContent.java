package dev.tern.protocol.model;

import java.util.Map;

import com.fasterxml.jackson.annotation.JsonProperty;

import org.jspecify.annotations.Nullable;

public record TextContent(String text, @Nullable Annotations annotations,
        @JsonProperty("_meta") @Nullable Map<String, Object> meta) implements Content {
}
