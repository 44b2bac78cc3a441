package dev.tern.examples;

import dev.tern.protocol.model.CallToolResult;
import dev.tern.server.McpServer;
import dev.tern.server.ToolSpec;

/** The fixture server the official MCP conformance suite expects. */
public final class ConformanceServer {
    private ConformanceServer() {
    }

    public static McpServer create() {
        return McpServer.builder()
                .info("tern-conformance", "0.1.0")
                .tool(ToolSpec.builder("test_simple_text")
                        .description("Tests simple text content response")
                        .handler((ctx, args) -> CallToolResult.text("This is a simple text response for testing."))
                        .build())
                .build();
    }
}
