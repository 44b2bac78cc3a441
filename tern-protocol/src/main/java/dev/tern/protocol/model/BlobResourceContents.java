package dev.tern.protocol.model;

import java.util.Map;

import com.fasterxml.jackson.annotation.JsonProperty;

/** @param blob base64-encoded bytes */
public record BlobResourceContents(String uri, String mimeType, String blob,
        @JsonProperty("_meta") Map<String, Object> meta) implements ResourceContents {
}
