package dev.tern.protocol.model;

import java.util.Map;

import com.fasterxml.jackson.annotation.JsonProperty;

public record TextResourceContents(String uri, String mimeType, String text,
        @JsonProperty("_meta") Map<String, Object> meta) implements ResourceContents {
}
