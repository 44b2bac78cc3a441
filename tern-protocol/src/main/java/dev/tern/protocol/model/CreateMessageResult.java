package dev.tern.protocol.model;

/** The client's answer to a sampling request. */
public record CreateMessageResult(Role role, Content content, String model, String stopReason) {
}
