package dev.tern.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.tern.protocol.model.CallToolResult;
import dev.tern.protocol.model.TextContent;
import dev.tern.server.CacheScope;
import dev.tern.server.McpServer;
import dev.tern.server.ToolSpec;
import dev.tern.transport.http.HttpServerTransport;

import tools.jackson.databind.node.ObjectNode;

/** The client keeps what the server marks cacheable: public results shared between clients, private ones per client. */
class ClientCacheTest {
    private final AtomicInteger runs = new AtomicInteger();
    private McpServer server;
    private HttpServerTransport transport;

    @BeforeEach
    void start() throws InterruptedException {
        ObjectNode anyObject = (ObjectNode) dev.tern.protocol.Json.mapper().readTree("{\"type\":\"object\"}");
        server = McpServer.builder()
                // nothing kept on the server, so every call that reaches it runs the handler
                .resultCacheMaxBytes(0)
                .tool(ToolSpec.builder("shared").inputSchema(anyObject).cache(Duration.ofMinutes(1), CacheScope.PUBLIC)
                        .handler((c, a) -> CallToolResult.text("shared " + runs.incrementAndGet())).build())
                .tool(ToolSpec.builder("mine").inputSchema(anyObject).cache(Duration.ofMinutes(1), CacheScope.PRIVATE)
                        .handler((c, a) -> CallToolResult.text("mine " + runs.incrementAndGet())).build())
                .tool(ToolSpec.builder("plain").inputSchema(anyObject)
                        .handler((c, a) -> CallToolResult.text("plain " + runs.incrementAndGet())).build())
                .build();
        transport = HttpServerTransport.builder(server).host("127.0.0.1").port(0).build().start();
    }

    @AfterEach
    void stop() {
        transport.close();
        server.close();
    }

    private McpClient client(ClientCache cache) {
        McpClient.HttpBuilder b = McpClient.http(URI.create("http://127.0.0.1:" + transport.port() + "/mcp")).era(Era.MODERN);
        return cache == null ? b.build() : b.cache(cache).build();
    }

    private static String call(McpClient client, String tool, Map<String, Object> args) {
        return ((TextContent) client.callTool(tool, args).join().content().get(0)).text();
    }

    @Test
    void aCacheableResultIsAnsweredFromTheClientUntilItsTimeToLiveEnds() {
        try (McpClient client = client(ClientCache.create(100))) {
            assertThat(call(client, "shared", Map.of("id", 1, "q", "x"))).isEqualTo("shared 1");
            assertThat(call(client, "shared", Map.of("q", "x", "id", 1))).isEqualTo("shared 1");
            assertThat(call(client, "plain", Map.of())).isEqualTo("plain 2");
            assertThat(call(client, "plain", Map.of())).as("a result without ttlMs is not kept").isEqualTo("plain 3");
            client.invalidateCache();
            assertThat(call(client, "shared", Map.of("id", 1, "q", "x"))).isEqualTo("shared 4");
        }
    }

    @Test
    void publicResultsAreSharedAndPrivateOnesAreNot() {
        ClientCache shared = ClientCache.create(100);
        try (McpClient alice = client(shared); McpClient bob = client(shared)) {
            assertThat(call(alice, "shared", Map.of())).isEqualTo("shared 1");
            assertThat(call(bob, "shared", Map.of())).as("public: kept for every client of the cache").isEqualTo("shared 1");
            assertThat(call(alice, "mine", Map.of())).isEqualTo("mine 2");
            assertThat(call(bob, "mine", Map.of())).as("private: never served to another client").isEqualTo("mine 3");
            assertThat(call(alice, "mine", Map.of())).isEqualTo("mine 2");
        }
    }

    @Test
    void withoutACacheEveryCallReachesTheServer() {
        try (McpClient client = client(null)) {
            assertThat(call(client, "shared", Map.of())).isEqualTo("shared 1");
            assertThat(call(client, "shared", Map.of())).isEqualTo("shared 2");
        }
    }
}
