package dev.tern.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.tern.protocol.model.CallToolResult;
import dev.tern.protocol.model.Implementation;

/** {@link McpServer#warmUp()} runs a request's path for no client and touches nothing a client could see. */
class WarmUpTest {

    @Test
    void callsNoHandlerAndLeavesNoChannelOpen() {
        AtomicInteger calls = new AtomicInteger();
        McpServer server = McpServer.builder().info(new Implementation("warm", null, "1", null, null, null))
                .tool(ToolSpec.builder("count").description("Counts its calls.")
                        .handler((ctx, args) -> CallToolResult.text("count=" + calls.incrementAndGet())).build())
                .build();
        try {
            assertThat(server.warmUp()).as("answered").isTrue();
            assertThat(server.warmUp()).as("answered again").isTrue();
            assertThat(calls).hasValue(0);
            assertThat(server.channelCount()).isZero();
        } finally {
            server.close();
        }
    }

    @Test
    void doesNothingOnAClosedServer() {
        McpServer server = McpServer.builder().info(new Implementation("warm", null, "1", null, null, null)).build();
        server.close();
        assertThat(server.warmUp()).isFalse();
        assertThat(server.channelCount()).isZero();
    }
}
