/**
 * MCP over stdin and stdout: {@link dev.tern.transport.stdio.StdioServerTransport} serves an
 * {@link dev.tern.server.McpServer} to the client that started the process. Nothing is null unless marked
 * {@code @Nullable}.
 */
@NullMarked
package dev.tern.transport.stdio;

import org.jspecify.annotations.NullMarked;
