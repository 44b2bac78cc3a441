package dev.tern.protocol.model;

import java.util.Map;

import com.fasterxml.jackson.annotation.JsonProperty;

import org.jspecify.annotations.Nullable;

/** A root the client exposes, such as a workspace folder. */
public record Root(String uri, @Nullable String name, @JsonProperty("_meta") @Nullable Map<String, Object> meta) {

    public Root(String uri, @Nullable String name) {
        this(uri, name, null);
    }
}
