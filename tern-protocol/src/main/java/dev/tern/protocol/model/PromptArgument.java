package dev.tern.protocol.model;

public record PromptArgument(String name, String title, String description, Boolean required) {
}
