package dev.tern.protocol.model;

import java.util.Map;

import com.fasterxml.jackson.annotation.JsonProperty;

/** A root the client exposes, such as a workspace folder. */
public record Root(String uri, String name, @JsonProperty("_meta") Map<String, Object> meta) {

    public Root(String uri, String name) {
        this(uri, name, null);
    }
}
