package dev.tern.spring.boot;

import dev.tern.server.McpServer;

/** A bean of this type adjusts the auto-configured server's builder after the application's features are added. */
@FunctionalInterface
public interface TernMcpServerCustomizer {
    void customize(McpServer.Builder builder);
}
