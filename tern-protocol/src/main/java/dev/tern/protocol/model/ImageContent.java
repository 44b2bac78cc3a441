package dev.tern.protocol.model;

import java.util.Map;

import com.fasterxml.jackson.annotation.JsonProperty;

/** @param data base64-encoded image bytes */
public record ImageContent(String data, String mimeType, Annotations annotations,
        @JsonProperty("_meta") Map<String, Object> meta) implements Content {
}
