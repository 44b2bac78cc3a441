package dev.tern.it;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

import dev.tern.client.Era;
import dev.tern.client.McpClient;
import dev.tern.client.McpClientException;
import dev.tern.protocol.Json;
import dev.tern.protocol.McpException;
import dev.tern.protocol.ProtocolVersion;
import dev.tern.protocol.model.CallToolResult;
import dev.tern.protocol.model.PromptDefinition;
import dev.tern.protocol.model.ResourceDefinition;
import dev.tern.protocol.model.TextContent;
import dev.tern.protocol.model.TextResourceContents;
import dev.tern.protocol.model.ToolDefinition;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Tern's Java client against a server built with the official TypeScript SDK ({@code src/test/js/ts-server.mjs},
 * {@code McpServer}): Streamable HTTP with sessions and without (SSE and JSON answers), and stdio. The SDK 1.x server
 * speaks the legacy era only, so {@link Era#AUTO} must find that out and fall back to {@code initialize}.
 */
class TernClientInteropTest {
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    private static Path node;
    private static Path npmDir;

    @BeforeAll
    static void tools() throws Exception {
        node = NodeTools.node();
        npmDir = NodeTools.npmDir();
    }

    private static Path script() {
        return NodeTools.root().resolve("tern-it/src/test/js/ts-server.mjs");
    }

    private static String config(String transport, boolean json) {
        ObjectNode c = Json.object().put("transport", transport).put("json", json).put("npmDir", npmDir.toString());
        return c.toString();
    }

    /** A running TypeScript SDK HTTP server; it stops when its stdin closes. */
    private record TsServer(Process process, int port, Path stderr) implements AutoCloseable {
        static TsServer start(String transport, boolean json) throws Exception {
            Path stderr = Files.createTempFile("ts-server-", ".err");
            Process p = new ProcessBuilder(node.toString(), script().toString(), config(transport, json))
                    .redirectError(stderr.toFile()).start();
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            String line = CompletableFuture.supplyAsync(() -> {
                try {
                    return out.readLine();
                } catch (IOException e) {
                    return null;
                }
            }).get(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            if (line == null) {
                p.destroyForcibly();
                throw new IllegalStateException("the TypeScript server did not start: " + Files.readString(stderr));
            }
            return new TsServer(p, Json.mapper().readTree(line).path("port").asInt(), stderr);
        }

        URI uri() {
            return URI.create("http://127.0.0.1:" + port + "/mcp");
        }

        @Override
        public void close() throws Exception {
            process.getOutputStream().close();
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
            Files.deleteIfExists(stderr);
        }
    }

    @ParameterizedTest(name = "{0} json={1} era={2}")
    @CsvSource({
        "stateful, false, AUTO", "stateful, false, LEGACY", "stateful, true, AUTO",
        "stateless, false, AUTO", "stateless, false, LEGACY", "stateless, true, AUTO"})
    void streamableHttp(String transport, boolean json, Era era) throws Exception {
        try (TsServer ts = TsServer.start(transport, json);
                McpClient client = McpClient.http(ts.uri()).era(era).requestTimeout(Duration.ofSeconds(30)).build()) {
            checkEverything(client, !json);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Era.class, names = {"AUTO", "LEGACY"})
    void stdio(Era era) {
        List<String> stderr = new CopyOnWriteArrayList<>();
        List<String> command = List.of(node.toString(), script().toString(), config("stdio", false));
        try (McpClient client = McpClient.stdio(command).era(era).requestTimeout(Duration.ofSeconds(30))
                .stderr(stderr::add).build()) {
            checkEverything(client, true);
        }
        assertThat(stderr).contains("ts-sdk-interop: serving over stdio");
    }

    @Test
    void aModernOnlyClientGetsAClearErrorFromALegacyServer() throws Exception {
        try (TsServer ts = TsServer.start("stateless", false);
                McpClient client = McpClient.http(ts.uri()).era(Era.MODERN).build()) {
            assertThatThrownBy(() -> client.listTools().get(30, TimeUnit.SECONDS))
                    .cause().isInstanceOfSatisfying(McpClientException.class,
                            e -> assertThat(e.httpStatus()).isEqualTo(400));
        }
    }

    private static void checkEverything(McpClient client, boolean streams) {
        assertThat(client.connect().join()).isEqualTo(Era.LEGACY);
        assertThat(client.protocolVersion()).isEqualTo(ProtocolVersion.V2025_11_25);
        assertThat(client.serverInfo().path("name").asString()).isEqualTo("ts-sdk-interop");

        assertThat(client.listTools().join()).extracting(ToolDefinition::name).contains("add", "echo", "fail", "progress");

        CallToolResult sum = client.callTool("add", Map.of("a", 2, "b", 3)).join();
        assertThat(sum.structuredContent().path("sum").asInt()).isEqualTo(5);
        assertThat(sum.isError()).isNotEqualTo(Boolean.TRUE);

        CallToolResult echo = client.callTool("echo", Map.of("text", "héllo ☃")).join();
        assertThat(echo.content()).singleElement().isInstanceOfSatisfying(TextContent.class,
                t -> assertThat(t.text()).isEqualTo("héllo ☃"));

        CallToolResult failed = client.callTool("fail", null).join();
        assertThat(failed.isError()).isTrue();
        assertThat(((TextContent) failed.content().get(0)).text()).isEqualTo("failed on purpose");

        // SDK 1.32 reports an unknown tool as a tool error result, not a JSON-RPC error
        CallToolResult unknownTool = client.callTool("no_such_tool", Map.of()).join();
        assertThat(unknownTool.isError()).isTrue();
        assertThat(((TextContent) unknownTool.content().get(0)).text()).contains("no_such_tool").contains("not found");

        assertThatThrownBy(() -> client.getPrompt("no_such_prompt", Map.of()).join())
                .cause().isInstanceOfSatisfying(McpException.class, e -> assertThat(e.code()).isEqualTo(-32602));
        assertThatThrownBy(() -> client.request("no/such/method", null).join())
                .cause().isInstanceOfSatisfying(McpException.class, e -> assertThat(e.code()).isEqualTo(-32601));

        assertThat(client.readResource("test://greeting").join().contents()).singleElement()
                .isInstanceOfSatisfying(TextResourceContents.class,
                        t -> assertThat(t.text()).isEqualTo("hello from the TypeScript SDK"));
        assertThat(client.listResources().join()).extracting(ResourceDefinition::uri).contains("test://greeting");
        assertThat(client.listPrompts().join()).extracting(PromptDefinition::name).contains("greet");
        assertThat(client.getPrompt("greet", Map.of("name", "Ada")).join().messages()).singleElement()
                .satisfies(m -> assertThat(((TextContent) m.content()).text()).contains("Ada"));

        List<JsonNode> progress = new CopyOnWriteArrayList<>();
        CallToolResult stepped = client.callTool("progress", Map.of("steps", 3), progress::add).join();
        assertThat(((TextContent) stepped.content().get(0)).text()).isEqualTo("did 3 steps");
        if (streams) {
            assertThat(progress).extracting(p -> p.path("progress").asInt()).containsExactly(1, 2, 3);
            assertThat(progress).allSatisfy(p -> assertThat(p.path("total").asInt()).isEqualTo(3));
        }
        client.ping().join();
    }
}
