package dev.tern.protocol.model;

/** A root the client exposes, such as a workspace folder. */
public record Root(String uri, String name) {
}
