package dev.tern.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;

import org.junit.jupiter.api.Test;

import dev.tern.client.Era;
import dev.tern.client.McpClient;
import dev.tern.client.McpReply;
import dev.tern.protocol.Json;
import dev.tern.testing.RedisServer;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** {@code tern serve --redis --cache-l2}: a public result one node computed is served by another from Redis. */
class SharedResultCacheNodesTest {
    private static final String SECRET = "a secret every node of this test shares (32+ bytes)";

    private static JsonNode getUser(String url, String id) {
        try (McpClient client = McpClient.http(URI.create(url)).era(Era.MODERN).build()) {
            ObjectNode params = Json.object().put("name", "get_user");
            params.putObject("arguments").put("id", id);
            McpReply reply = client.send("tools/call", params).join();
            assertThat(reply.error()).as("%s", reply).isNull();
            return reply.result();
        }
    }

    @Test
    void aResultComputedOnOneNodeIsServedByAnotherWithTheTimeItHasLeft() throws Exception {
        try (RedisServer redis = RedisServer.start();
                TernProcess a = TernProcess.http("user-directory", "--redis", redis.uri(), "--secret", SECRET,
                        "--cache-l2", "--cache-tool", "get_user=1h");
                TernProcess b = TernProcess.http("user-directory", "--redis", redis.uri(), "--secret", SECRET,
                        "--cache-l2", "--cache-tool", "get_user=1h")) {
            JsonNode fresh = getUser(a.url(), "7");
            assertThat(fresh.path("ttlMs").asLong()).as("a result just computed has its whole ttl").isEqualTo(3_600_000);
            Thread.sleep(20);

            JsonNode shared = getUser(b.url(), "7");
            assertThat(shared.path("structuredContent")).isEqualTo(fresh.path("structuredContent"));
            assertThat(shared.path("cacheScope").asString()).isEqualTo("public");
            assertThat(shared.path("ttlMs").asLong()).as("node b was served node a's result from Redis, with the time "
                    + "it had left").isBetween(1L, 3_600_000L - 10);

            JsonNode other = getUser(b.url(), "8");
            assertThat(other.path("ttlMs").asLong()).as("other arguments: computed on node b").isEqualTo(3_600_000);
            JavaSdkClientHttpTest.assertNoServerErrors(a.stderr() + b.stderr());
        }
    }
}
