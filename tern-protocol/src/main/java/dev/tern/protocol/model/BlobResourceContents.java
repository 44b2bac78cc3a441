package dev.tern.protocol.model;

import java.util.Map;

import com.fasterxml.jackson.annotation.JsonProperty;

import org.jspecify.annotations.Nullable;

/** @param blob base64-encoded bytes */
public record BlobResourceContents(String uri, @Nullable String mimeType, String blob,
        @JsonProperty("_meta") @Nullable Map<String, Object> meta) implements ResourceContents {
}
