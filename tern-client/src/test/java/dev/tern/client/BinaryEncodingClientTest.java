package dev.tern.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.tern.protocol.McpException;
import dev.tern.protocol.WireFormat;
import dev.tern.protocol.model.CallToolResult;
import dev.tern.protocol.model.TextContent;

import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The client speaks CBOR and MessagePack when asked, in both eras, and still reads JSON streams. */
class BinaryEncodingClientTest {
    private static TestServers.Running server;

    @BeforeAll
    static void start() throws InterruptedException {
        server = TestServers.http(b -> b);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static McpClient client(WireFormat format, Era era) {
        return McpClient.http(URI.create("http://127.0.0.1:" + server.port() + "/mcp")).era(era).encoding(format).build();
    }

    @ParameterizedTest
    @EnumSource(WireFormat.class)
    void callsGoThroughInEachEncodingAndEra(WireFormat format) {
        for (Era era : List.of(Era.MODERN, Era.LEGACY)) {
            try (McpClient client = client(format, era)) {
                CallToolResult user = client.callTool("get_user", Map.of("id", "42")).join();
                assertThat(((TextContent) user.content().get(0)).text()).as("%s %s", format, era).contains("42");
                assertThat(client.listTools().join()).isNotEmpty();
                assertThatThrownBy(() -> client.callTool("no_such_tool", Map.of()).join())
                        .hasCauseInstanceOf(McpException.class);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = WireFormat.class, names = {"CBOR", "MSGPACK"})
    void aStreamedAnswerIsReadAsJson(WireFormat format) {
        try (McpClient client = client(format, Era.MODERN)) {
            List<JsonNode> progress = new CopyOnWriteArrayList<>();
            CallToolResult counted = client.callTool("count", Map.of("steps", 3), progress::add).join();
            assertThat(counted.isError()).isNotEqualTo(Boolean.TRUE);
            assertThat(progress).extracting(p -> p.path("progress").asInt()).containsExactly(1, 2, 3);
        }
    }
}
