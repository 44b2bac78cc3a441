/**
 * An MCP client for both protocol eras: {@link dev.tern.client.McpClient}, built with
 * {@link dev.tern.client.McpClient#http(java.net.URI)} for Streamable HTTP or
 * {@link dev.tern.client.McpClient#stdio(java.util.List)} for a server started as a child process. The asynchronous
 * HTTP engine under it is {@link dev.tern.client.http}. Nothing is null unless marked {@code @Nullable}.
 */
@NullMarked
package dev.tern.client;

import org.jspecify.annotations.NullMarked;
