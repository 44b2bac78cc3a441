package dev.tern.protocol.model;

/** Untrusted hints about a tool's behaviour. */
public record ToolAnnotations(String title, Boolean readOnlyHint, Boolean destructiveHint, Boolean idempotentHint,
        Boolean openWorldHint) {
}
