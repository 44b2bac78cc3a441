package dev.tern.protocol.model;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonProperty;

import org.jspecify.annotations.Nullable;

public record ReadResourceResult(List<ResourceContents> contents,
        @JsonProperty("_meta") @Nullable Map<String, Object> meta) {
    public static ReadResourceResult of(ResourceContents... contents) {
        return new ReadResourceResult(List.of(contents), null);
    }
}
