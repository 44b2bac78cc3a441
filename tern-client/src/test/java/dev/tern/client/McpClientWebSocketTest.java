package dev.tern.client;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import dev.tern.protocol.Json;
import dev.tern.protocol.McpException;
import dev.tern.protocol.ProtocolVersion;
import dev.tern.protocol.model.CallToolResult;
import dev.tern.protocol.model.TextContent;
import dev.tern.protocol.model.ToolDefinition;

import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** McpClient against Tern's WebSocket endpoint in process: both eras, over ws:// and wss://. */
class McpClientWebSocketTest {
    private static TestServers.Running clear;
    private static TestServers.Running tls;

    @BeforeAll
    static void start() throws InterruptedException {
        clear = TestServers.http(b -> b);
        tls = TestServers.http(b -> b.tls(t -> t.selfSigned()));
    }

    @AfterAll
    static void stop() {
        if (clear != null) {
            clear.close();
        }
        if (tls != null) {
            tls.close();
        }
    }

    private static McpClient.WebSocketBuilder client(boolean secure) {
        return secure ? McpClient.webSocket(URI.create(tls.transport().webSocketUrl())).insecure()
                : McpClient.webSocket(URI.create(clear.transport().webSocketUrl()));
    }

    @ParameterizedTest
    @CsvSource({"false, MODERN", "false, LEGACY", "false, AUTO", "true, MODERN", "true, LEGACY"})
    void servesEveryFeatureInEachEra(boolean secure, Era era) {
        List<String> notifications = new CopyOnWriteArrayList<>();
        try (McpClient client = client(secure).era(era).notificationListener(n -> notifications.add(n.method()))
                .build()) {
            assertThat(client.connect().join()).isEqualTo(era == Era.LEGACY ? Era.LEGACY : Era.MODERN);
            assertThat(client.protocolVersion()).isEqualTo(era == Era.LEGACY
                    ? ProtocolVersion.V2025_11_25 : ProtocolVersion.V2026_07_28);
            assertThat(client.listTools().join()).extracting(ToolDefinition::name).contains("get_user", "count");
            CallToolResult user = client.callTool("get_user", Map.of("id", "7")).join();
            assertThat(user.structuredContent().path("id").asString()).isEqualTo("7");
            assertThatThrownBy(() -> client.callTool("no_such_tool", Map.of()).join())
                    .cause().isInstanceOf(McpException.class);
            List<JsonNode> progress = new CopyOnWriteArrayList<>();
            CallToolResult counted = client.callTool("count", Map.of("steps", 3), progress::add).join();
            assertThat(counted.structuredContent().path("steps").asInt()).isEqualTo(3);
            assertThat(progress).extracting(p -> p.path("progress").asInt()).containsExactly(1, 2, 3);
            assertThat(notifications).contains("notifications/progress");
            client.ping().join();
            McpReply raw = client.send("no/such/method", null).join();
            assertThat(raw.error().code()).isEqualTo(-32601);
            assertThat(raw.httpStatus()).isZero();
        }
    }

    @ParameterizedTest
    @CsvSource({"CBOR, MODERN", "CBOR, LEGACY", "MSGPACK, MODERN", "MSGPACK, LEGACY"})
    void speaksABinaryEncodingInEachEra(dev.tern.protocol.WireFormat format, Era era) {
        try (McpClient client = client(false).encoding(format).era(era).build()) {
            assertThat(client.connect().join()).isEqualTo(era);
            assertThat(client.listTools().join()).extracting(ToolDefinition::name).contains("get_user", "count");
            assertThat(client.callTool("get_user", Map.of("id", "7")).join().structuredContent().path("id").asString())
                    .isEqualTo("7");
            List<JsonNode> progress = new CopyOnWriteArrayList<>();
            client.callTool("count", Map.of("steps", 2), progress::add).join();
            assertThat(progress).extracting(p -> p.path("progress").asInt()).containsExactly(1, 2);
            assertThat(client.send("no/such/method", null).join().error().code()).isEqualTo(-32601);
        }
    }

    @Test
    void servesBothErasOverOneConnection() {
        try (McpClient legacy = client(false).era(Era.LEGACY).build()) {
            assertThat(legacy.connect().join()).isEqualTo(Era.LEGACY);
            assertThat(legacy.callTool("get_user", Map.of("id", "1")).join().structuredContent().path("id").asString())
                    .isEqualTo("1");
            // a 2026-07-28 request on the connection that holds the legacy session: its _meta says which era it is
            JsonNode meta = Json.object().put("io.modelcontextprotocol/protocolVersion", "2026-07-28")
                    .set("io.modelcontextprotocol/clientCapabilities", Json.object());
            McpReply modern = legacy.send("tools/call", Json.object().put("name", "get_user")
                    .<tools.jackson.databind.node.ObjectNode>set("arguments", Json.object().put("id", "2"))
                    .set("_meta", meta)).join();
            assertThat(modern.result().path("structuredContent").path("id").asString()).isEqualTo("2");
            assertThat(modern.result().path("resultType").asString()).isEqualTo("complete");
            assertThat(legacy.callTool("get_user", Map.of("id", "3")).join().structuredContent().path("id").asString())
                    .isEqualTo("3");
        }
    }

    @Test
    void cancellingASentRequestReachesTheServer() throws Exception {
        try (McpClient client = client(false).era(Era.MODERN).build()) {
            client.connect().join();
            int before = TestServers.Extras.CANCELLED.get();
            int started = TestServers.Extras.STARTED.get();
            CompletableFuture<McpReply> slow = client.send("tools/call", Json.object()
                    .put("name", "slow").set("arguments", Json.object().put("millis", 10_000)));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(8);
            while (TestServers.Extras.STARTED.get() == started && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(slow.cancel(true)).isTrue();
            while (TestServers.Extras.CANCELLED.get() == before && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(TestServers.Extras.CANCELLED.get()).as("the slow tool saw its cancellation").isGreaterThan(before);
            assertThat(client.listTools().join()).isNotEmpty();
        }
    }

    @Test
    void manyConcurrentRequestsOnOneConnection() {
        try (McpClient client = client(false).era(Era.MODERN).build()) {
            List<CompletableFuture<CallToolResult>> calls = new java.util.ArrayList<>();
            for (int i = 0; i < 500; i++) {
                calls.add(client.callTool("get_user", Map.of("id", Integer.toString(1 + i % 100))));
            }
            for (int i = 0; i < calls.size(); i++) {
                assertThat(calls.get(i).join().structuredContent().path("id").asString())
                        .isEqualTo(Integer.toString(1 + i % 100));
            }
        }
    }

    @Test
    void aServerThatIsDownFailsTheCallAndTheNextCallConnectsAgain() throws Exception {
        int port;
        try (java.net.ServerSocket probe = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        try (McpClient client = McpClient.webSocket(URI.create("ws://127.0.0.1:" + port + "/mcp/ws"))
                .era(Era.MODERN).requestTimeout(Duration.ofSeconds(10)).build()) {
            assertThatThrownBy(() -> client.listTools().join()).cause().isInstanceOf(McpClientException.class)
                    .hasMessageContaining("cannot open a WebSocket to ws://127.0.0.1:" + port);
            try (TestServers.Running late = TestServers.http(b -> b.port(port))) {
                assertThat(client.listTools().join()).isNotEmpty();
            }
        }
    }

    @Test
    void aRefusedUpgradeFailsWithItsReason() {
        try (TestServers.Running off = TestServers.http(b -> b.webSocket(w -> w.off()));
                McpClient client = McpClient.webSocket(URI.create("ws://127.0.0.1:" + off.port() + "/mcp/ws"))
                        .era(Era.MODERN).build()) {
            assertThatThrownBy(() -> client.listTools().join()).cause().isInstanceOf(McpClientException.class)
                    .hasMessageContaining("404");
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aUrlWithoutAPathMeansTheDefaultWebSocketPath() {
        assertThat(McpClient.withDefaultPath(URI.create("ws://127.0.0.1:8080"), McpClient.DEFAULT_WEBSOCKET_PATH))
                .hasToString("ws://127.0.0.1:8080/mcp/ws");
        try (McpClient client = McpClient.webSocket(URI.create("ws://127.0.0.1:" + clear.port())).era(Era.MODERN)
                .build()) {
            assertThat(client.listTools().join()).isNotEmpty();
        }
        assertThat(McpClient.isWebSocket(URI.create("WSS://h/x"))).isTrue();
        assertThat(McpClient.isWebSocket(URI.create("https://h/x"))).isFalse();
    }

    @Test
    void toolResultsKeepTheirContent() {
        try (McpClient client = client(false).era(Era.MODERN).build()) {
            CallToolResult failed = client.callTool("always_fails", null).join();
            assertThat(failed.isError()).isTrue();
            assertThat(((TextContent) failed.content().get(0)).text()).contains("always fails");
        }
    }
}
