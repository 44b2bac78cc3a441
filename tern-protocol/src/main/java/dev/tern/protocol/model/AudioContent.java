package dev.tern.protocol.model;

import java.util.Map;

import com.fasterxml.jackson.annotation.JsonProperty;

import org.jspecify.annotations.Nullable;

/** @param data base64-encoded audio bytes */
public record AudioContent(String data, String mimeType, @Nullable Annotations annotations,
        @JsonProperty("_meta") @Nullable Map<String, Object> meta) implements Content {
}
