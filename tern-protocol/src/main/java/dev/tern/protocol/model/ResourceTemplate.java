package dev.tern.protocol.model;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonProperty;

import org.jspecify.annotations.Nullable;

/** A resource template (RFC 6570) as listed by {@code resources/templates/list}. */
public record ResourceTemplate(String uriTemplate, String name, @Nullable String title, @Nullable String description,
        @Nullable String mimeType, @Nullable Annotations annotations, @Nullable List<Icon> icons,
        @JsonProperty("_meta") @Nullable Map<String, Object> meta) {
}
