/**
 * Tern's server: {@link dev.tern.server.McpServer} and the ways to declare what it serves, annotated methods
 * ({@link dev.tern.server.Tool}, {@link dev.tern.server.Resource}, {@link dev.tern.server.Prompt}) or spec builders
 * ({@link dev.tern.server.ToolSpec} and its siblings), the {@link dev.tern.server.RequestContext} a handler works with,
 * and the interfaces a transport or a store implements. Nothing is null unless marked {@code @Nullable}.
 */
@NullMarked
package dev.tern.server;

import org.jspecify.annotations.NullMarked;
