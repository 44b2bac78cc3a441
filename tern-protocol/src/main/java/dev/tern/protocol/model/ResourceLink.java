package dev.tern.protocol.model;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonProperty;

/** A link to a resource the client may read; not necessarily listed by {@code resources/list}. */
public record ResourceLink(String uri, String name, String title, String description, String mimeType, Long size,
        List<Icon> icons, Annotations annotations, @JsonProperty("_meta") Map<String, Object> meta) implements Content {
    public static ResourceLink of(String uri, String name, String mimeType) {
        return new ResourceLink(uri, name, null, null, mimeType, null, null, null, null);
    }
}
