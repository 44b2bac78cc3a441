package dev.tern.protocol.model;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonProperty;

/** A resource template (RFC 6570) as listed by {@code resources/templates/list}. */
public record ResourceTemplate(String uriTemplate, String name, String title, String description, String mimeType,
        Annotations annotations, List<Icon> icons, @JsonProperty("_meta") Map<String, Object> meta) {
}
