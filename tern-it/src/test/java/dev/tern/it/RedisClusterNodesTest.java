package dev.tern.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.tern.client.Era;
import dev.tern.client.McpClient;
import dev.tern.client.McpReply;
import dev.tern.protocol.Json;
import dev.tern.testing.RedisCluster;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** {@code tern serve --redis redis-cluster://…}: two nodes sharing a three-master Redis Cluster. */
class RedisClusterNodesTest {
    private static final String SECRET = "a secret every node of this test shares (32+ bytes)";
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @Test
    void aSessionInitializedOnOneNodeIsServedByTheOtherAndSoIsAResultOneComputed() throws Exception {
        try (RedisCluster cluster = RedisCluster.start();
                TernProcess a = TernProcess.http("user-directory", "--redis", cluster.uri(), "--secret", SECRET,
                        "--cache-l2", "--cache-tool", "get_user=1h");
                TernProcess b = TernProcess.http("user-directory", "--redis", cluster.uri(), "--secret", SECRET,
                        "--cache-l2", "--cache-tool", "get_user=1h")) {
            HttpResponse<String> init = post(a.url(), null, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
                    + "\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                    + "\"clientInfo\":{\"name\":\"cluster\",\"version\":\"1\"}}}");
            assertThat(init.statusCode()).as(init.body()).isEqualTo(200);
            String session = init.headers().firstValue("mcp-session-id").orElseThrow();
            assertThat(post(a.url(), session, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}")
                    .statusCode()).isEqualTo(202);

            HttpResponse<String> onB = post(b.url(), session, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\","
                    + "\"params\":{\"name\":\"get_user\",\"arguments\":{\"id\":\"3\"}}}");
            assertThat(onB.statusCode()).as(onB.body()).isEqualTo(200);
            assertThat(onB.body()).as("served on node b").contains("\"result\"", "\"structuredContent\"")
                    .doesNotContain("\"error\"");

            JsonNode fresh = getUser(a.url(), "7");
            assertThat(fresh.path("ttlMs").asLong()).as("a result just computed has its whole ttl").isEqualTo(3_600_000);
            Thread.sleep(20);
            JsonNode shared = getUser(b.url(), "7");
            assertThat(shared.path("structuredContent")).isEqualTo(fresh.path("structuredContent"));
            assertThat(shared.path("ttlMs").asLong()).as("node b was served node a's result from the cluster")
                    .isBetween(1L, 3_600_000L - 10);
            JavaSdkClientHttpTest.assertNoServerErrors(a.stderr() + b.stderr());
        }
    }

    private HttpResponse<String> post(String url, String session, String body) throws Exception {
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (session != null) {
            r.header("Mcp-Session-Id", session).header("MCP-Protocol-Version", "2025-11-25");
        }
        return http.send(r.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode getUser(String url, String id) {
        try (McpClient client = McpClient.http(URI.create(url)).era(Era.MODERN).build()) {
            ObjectNode params = Json.object().put("name", "get_user");
            params.putObject("arguments").put("id", id);
            McpReply reply = client.send("tools/call", params).join();
            assertThat(reply.error()).as("%s", reply).isNull();
            return reply.result();
        }
    }
}
