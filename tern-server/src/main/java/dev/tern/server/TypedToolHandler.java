package dev.tern.server;

import org.jspecify.annotations.Nullable;

/**
 * Serves a tool with arguments bound to {@code A}. The return value becomes the tool result: a
 * {@link dev.tern.protocol.model.CallToolResult} as is, a {@link String} as text, a
 * {@link dev.tern.protocol.model.Content} or a list of them as content, anything else as structured content
 * (with its JSON also in a text block); {@code null} as no content.
 */
@FunctionalInterface
public interface TypedToolHandler<A, R> {
    @Nullable R call(RequestContext context, A arguments) throws Exception;
}
