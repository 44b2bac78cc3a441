/**
 * What the server and its transports report about requests, sessions and their own counts, to an
 * {@link dev.tern.server.observe.McpObserver} given to {@link dev.tern.server.McpServer.Builder#observer}. The default,
 * {@link dev.tern.server.observe.McpObserver#off()}, allocates nothing and does nothing; tern-observability implements
 * it with OpenTelemetry. Values the transport did not see are {@code null}.
 */
package dev.tern.server.observe;
