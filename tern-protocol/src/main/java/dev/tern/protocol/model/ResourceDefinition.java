package dev.tern.protocol.model;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonProperty;

/** A resource as listed by {@code resources/list}. */
public record ResourceDefinition(String uri, String name, String title, String description, String mimeType, Long size,
        Annotations annotations, List<Icon> icons, @JsonProperty("_meta") Map<String, Object> meta) {
}
