package dev.tern.protocol.model;

import org.jspecify.annotations.Nullable;

/** Untrusted hints about a tool's behaviour. */
public record ToolAnnotations(@Nullable String title, @Nullable Boolean readOnlyHint, @Nullable Boolean destructiveHint,
        @Nullable Boolean idempotentHint, @Nullable Boolean openWorldHint) {
}
