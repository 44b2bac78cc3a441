package dev.tern.protocol.model;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonProperty;

public record ReadResourceResult(List<ResourceContents> contents, @JsonProperty("_meta") Map<String, Object> meta) {
    public static ReadResourceResult of(ResourceContents... contents) {
        return new ReadResourceResult(List.of(contents), null);
    }
}
