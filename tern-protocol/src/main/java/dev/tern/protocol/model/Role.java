package dev.tern.protocol.model;

import com.fasterxml.jackson.annotation.JsonValue;

/** Who a message or content is for or from. */
public enum Role {
    USER("user"),
    ASSISTANT("assistant");

    private final String wire;

    Role(String wire) {
        this.wire = wire;
    }

    @JsonValue
    public String wire() {
        return wire;
    }
}
