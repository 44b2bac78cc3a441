package dev.tern.protocol.model;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonProperty;

import org.jspecify.annotations.Nullable;

/** A resource as listed by {@code resources/list}. */
public record ResourceDefinition(String uri, String name, @Nullable String title, @Nullable String description,
        @Nullable String mimeType, @Nullable Long size, @Nullable Annotations annotations, @Nullable List<Icon> icons,
        @JsonProperty("_meta") @Nullable Map<String, Object> meta) {
}
