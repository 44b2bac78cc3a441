package dev.tern.protocol.model;

import org.jspecify.annotations.Nullable;

public record PromptArgument(String name, @Nullable String title, @Nullable String description,
        @Nullable Boolean required) {
}
