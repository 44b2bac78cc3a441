package dev.tern.protocol.model;

import java.util.Map;

import com.fasterxml.jackson.annotation.JsonProperty;

import org.jspecify.annotations.Nullable;

public record TextResourceContents(String uri, @Nullable String mimeType, String text,
        @JsonProperty("_meta") @Nullable Map<String, Object> meta) implements ResourceContents {
}
