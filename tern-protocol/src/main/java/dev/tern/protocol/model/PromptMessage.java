package dev.tern.protocol.model;

import org.jspecify.annotations.Nullable;

public record PromptMessage(Role role, Content content) {
    public static PromptMessage user(Content content) {
        return new PromptMessage(Role.USER, content);
    }

    public static PromptMessage assistant(Content content) {
        return new PromptMessage(Role.ASSISTANT, content);
    }
}
