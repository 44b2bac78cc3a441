package dev.tern.client;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.tern.protocol.McpException;
import dev.tern.protocol.ProtocolVersion;
import dev.tern.protocol.model.CallToolResult;
import dev.tern.protocol.model.TextResourceContents;
import dev.tern.protocol.model.ToolDefinition;

import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** McpClient over stdio against a Tern server it starts as a child process, in both eras and AUTO. */
class McpClientStdioTest {

    static List<String> serverCommand() {
        return List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), StdioServerMain.class.getName());
    }

    @ParameterizedTest
    @EnumSource(Era.class)
    void everyFeatureAndPipelining(Era era) {
        List<String> stderr = new CopyOnWriteArrayList<>();
        try (McpClient client = McpClient.stdio(serverCommand()).era(era).stderr(stderr::add).build()) {
            assertThat(client.connect().join()).isEqualTo(era == Era.LEGACY ? Era.LEGACY : Era.MODERN);
            assertThat(client.protocolVersion()).isEqualTo(era == Era.LEGACY
                    ? ProtocolVersion.V2025_11_25 : ProtocolVersion.V2026_07_28);
            assertThat(client.listTools().join()).extracting(ToolDefinition::name).contains("get_user", "count");
            assertThat(client.callTool("get_user", Map.of("id", "9")).join().structuredContent().path("id").asString())
                    .isEqualTo("9");
            assertThat(client.callTool("always_fails", null).join().isError()).isTrue();
            assertThatThrownBy(() -> client.callTool("no_such_tool", Map.of()).join())
                    .cause().isInstanceOf(McpException.class);
            assertThat(client.readResource("user://9").join().contents()).singleElement()
                    .isInstanceOf(TextResourceContents.class);
            assertThat(client.getPrompt("summarize_user", Map.of("id", "9")).join().messages()).isNotEmpty();
            client.ping().join();

            List<JsonNode> progress = new CopyOnWriteArrayList<>();
            client.callTool("count", Map.of("steps", 4), progress::add).join();
            assertThat(progress).extracting(p -> p.path("progress").asInt()).containsExactly(1, 2, 3, 4);

            List<CompletableFuture<CallToolResult>> inFlight = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                inFlight.add(client.callTool("get_user", Map.of("id", Integer.toString(1 + i % 50))));
            }
            for (int i = 0; i < inFlight.size(); i++) {
                assertThat(inFlight.get(i).join().structuredContent().path("id").asString())
                        .isEqualTo(Integer.toString(1 + i % 50));
            }
            CompletableFuture<McpReply> slow = client.send("tools/call", dev.tern.protocol.Json.object()
                    .put("name", "slow").set("arguments", dev.tern.protocol.Json.object().put("millis", 10_000)));
            assertThat(slow.cancel(true)).isTrue();
            McpReply reply = client.send("tools/list", null).join();
            assertThat(reply.http()).isNull();
            assertThat(reply.completeNanos()).isGreaterThanOrEqualTo(reply.sentNanos());
        }
        assertThat(stderr).contains("stdio test server starting");
    }

    @Test
    void aServerThatExitsFailsWhatIsPendingWithItsStderr() throws Exception {
        List<String> command = List.of("sh", "-c", "echo 'no such server here' >&2; exit 3");
        try (McpClient client = McpClient.stdio(command).era(Era.MODERN).build()) {
            assertThatThrownBy(() -> client.listTools().get(20, TimeUnit.SECONDS))
                    .cause().isInstanceOf(McpClientException.class)
                    .hasMessageContaining("no such server here");
        }
    }
}
