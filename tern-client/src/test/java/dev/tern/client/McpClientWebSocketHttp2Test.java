package dev.tern.client;

import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.tern.protocol.ProtocolVersion;
import dev.tern.protocol.model.ToolDefinition;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/** McpClient over a WebSocket on an HTTP/2 stream (RFC 8441), h2c and TLS h2, against Tern in process. */
class McpClientWebSocketHttp2Test {
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

    @ParameterizedTest
    @CsvSource({"false, MODERN", "false, LEGACY", "true, MODERN", "true, LEGACY"})
    void servesEachEraOnAnHttp2Stream(boolean secure, Era era) {
        McpClient.WebSocketBuilder b = secure ? McpClient.webSocket(URI.create(tls.transport().webSocketUrl())).insecure()
                : McpClient.webSocket(URI.create(clear.transport().webSocketUrl()));
        List<String> notifications = new CopyOnWriteArrayList<>();
        try (McpClient client = b.http2(true).era(era).notificationListener(n -> notifications.add(n.method()))
                .build()) {
            assertThat(client.connect().join()).isEqualTo(era);
            assertThat(client.protocolVersion()).isEqualTo(era == Era.LEGACY
                    ? ProtocolVersion.V2025_11_25 : ProtocolVersion.V2026_07_28);
            assertThat(client.listTools().join()).extracting(ToolDefinition::name).contains("get_user", "count");
            assertThat(((WebSocketMcpTransport) client.transport()).http2()).as("on an HTTP/2 stream").isTrue();
            assertThat(client.callTool("get_user", Map.of("id", "7")).join().structuredContent().path("id").asString())
                    .isEqualTo("7");
            List<JsonNode> progress = new CopyOnWriteArrayList<>();
            client.callTool("count", Map.of("steps", 3), progress::add).join();
            assertThat(progress).extracting(p -> p.path("progress").asInt()).containsExactly(1, 2, 3);
            assertThat(notifications).contains("notifications/progress");
            assertThat(client.send("no/such/method", null).join().error().code()).isEqualTo(-32601);
        }
    }
}
