package dev.tern.protocol.model;

import java.util.Map;

import com.fasterxml.jackson.annotation.JsonProperty;

public record TextContent(String text, Annotations annotations, @JsonProperty("_meta") Map<String, Object> meta)
        implements Content {
}
