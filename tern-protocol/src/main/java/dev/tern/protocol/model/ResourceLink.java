package dev.tern.protocol.model;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonProperty;

import org.jspecify.annotations.Nullable;

/** A link to a resource the client may read; not necessarily listed by {@code resources/list}. */
public record ResourceLink(String uri, String name, @Nullable String title, @Nullable String description,
        @Nullable String mimeType, @Nullable Long size, @Nullable List<Icon> icons, @Nullable Annotations annotations,
        @JsonProperty("_meta") @Nullable Map<String, Object> meta) implements Content {
    public static ResourceLink of(String uri, String name, @Nullable String mimeType) {
        return new ResourceLink(uri, name, null, null, mimeType, null, null, null, null);
    }
}
