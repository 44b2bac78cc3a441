package dev.tern.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.tern.protocol.Json;
import dev.tern.protocol.JsonRpcMessage;
import dev.tern.protocol.JsonRpcRequest;
import dev.tern.protocol.JsonRpcResponse;
import dev.tern.protocol.JsonRpcResult;
import dev.tern.protocol.McpMeta;
import dev.tern.protocol.RequestId;
import dev.tern.protocol.model.CallToolResult;
import dev.tern.server.CacheScope;
import dev.tern.server.CacheSecondLevel;
import dev.tern.server.McpServer;
import dev.tern.server.Outbound;
import dev.tern.server.ToolSpec;
import dev.tern.testing.RedisServer;

import tools.jackson.databind.node.ObjectNode;

/** Two nodes' result caches over one Redis: public results computed once for both, invalidations seen by both. */
class RedisResultCacheTest {
    private static final ObjectNode ANY_OBJECT = (ObjectNode) Json.mapper().readTree("{\"type\":\"object\"}");

    private static RedisServer server;
    private static Redis redisA;
    private static Redis redisB;

    private final AtomicInteger runs = new AtomicInteger();

    @BeforeAll
    static void start() {
        server = RedisServer.start();
        redisA = Redis.connect(server.uri());
        redisB = Redis.connect(server.uri());
    }

    @AfterAll
    static void stop() {
        if (redisA != null) {
            redisA.close();
        }
        if (redisB != null) {
            redisB.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @BeforeEach
    void empty() throws InterruptedException {
        awaitConnected(redisA);
        awaitConnected(redisB);
        redisA.callWithoutKey(r -> r.flushall());
    }

    /** Waits (bounded) until a connection answers again, as after a test that stopped redis-server. */
    private static void awaitConnected(Redis redis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (true) {
            try {
                redis.callWithoutKey(r -> r.ping());
                return;
            } catch (dev.tern.server.StoreUnavailableException e) {
                assertThat(System.nanoTime()).as("Redis answers again: %s", e).isLessThan(deadline);
                Thread.sleep(50);
            }
        }
    }

    /** A node serving the tools "lookup" (public) and "mine" (private), which count their runs across nodes. */
    private McpServer node(Redis redis) {
        return McpServer.builder().cacheSecondLevel(new RedisResultCache(redis))
                .tool(counter("lookup", CacheScope.PUBLIC)).tool(counter("mine", CacheScope.PRIVATE)).build();
    }

    private ToolSpec counter(String name, CacheScope scope) {
        return ToolSpec.builder(name).inputSchema(ANY_OBJECT).cache(Duration.ofMinutes(1), scope)
                .handler((ctx, args) -> CallToolResult.text("run " + runs.incrementAndGet() + " for "
                        + args.path("id").asString(""))).build();
    }

    /** A 2026-07-28 tools/call served as {@code principal}: its result. */
    private static ObjectNode call(McpServer node, String principal, String tool, String id) throws Exception {
        ObjectNode params = Json.object();
        params.put("name", tool);
        params.putObject("arguments").put("id", id);
        ObjectNode meta = params.putObject(McpMeta.KEY);
        meta.put(McpMeta.PROTOCOL_VERSION, "2026-07-28");
        meta.putObject(McpMeta.CLIENT_CAPABILITIES);
        CompletableFuture<JsonRpcResponse> answer = new CompletableFuture<>();
        node.serve(new JsonRpcRequest(RequestId.of(1), "tools/call", params), new Outbound() {
            @Override
            public void send(JsonRpcMessage message, RequestId relatedTo) {
                if (message instanceof JsonRpcResponse r) {
                    answer.complete(r);
                }
            }

            @Override
            public String principal() {
                return principal;
            }
        });
        JsonRpcResponse response = answer.get(20, TimeUnit.SECONDS);
        assertThat(response).isInstanceOf(JsonRpcResult.class);
        return (ObjectNode) ((JsonRpcResult) response).result();
    }

    private static String text(ObjectNode result) {
        return result.path("content").path(0).path("text").asString();
    }

    private static List<String> valueKeys() {
        return redisA.callWithoutKey(r -> r.keys("tern:{rc:*}:v:*"));
    }

    @Test
    void aPublicResultOneNodeComputedIsServedByAnotherWithTheTimeItHasLeft() throws Exception {
        try (McpServer a = node(redisA); McpServer b = node(redisB)) {
            assertThat(text(call(a, "alice", "lookup", "7"))).isEqualTo("run 1 for 7");
            ObjectNode fromRedis = call(b, "bob", "lookup", "7");
            assertThat(text(fromRedis)).isEqualTo("run 1 for 7");
            assertThat(fromRedis.path("ttlMs").asLong()).isBetween(1L, 60_000L);
            assertThat(fromRedis.path("cacheScope").asString()).isEqualTo("public");
            assertThat(text(call(b, null, "lookup", "7"))).isEqualTo("run 1 for 7");
            assertThat(text(call(b, null, "lookup", "8"))).as("other arguments, another result").isEqualTo("run 2 for 8");
            assertThat(runs).hasValue(2);
            assertThat(valueKeys()).hasSize(2);
        }
    }

    @Test
    void anInvalidationOnOneNodeIsSeenByTheOthersNextLookUp() throws Exception {
        try (McpServer a = node(redisA); McpServer b = node(redisB)) {
            call(a, null, "lookup", "1");
            a.invalidateTool("lookup");
            assertThat(text(call(b, null, "lookup", "1"))).isEqualTo("run 2 for 1");
            assertThat(text(call(a, null, "lookup", "1"))).as("node a finds node b's run").isEqualTo("run 2 for 1");

            b.invalidateCache();
            McpServer c = node(redisA);
            try (c) {
                assertThat(text(call(c, null, "lookup", "1"))).isEqualTo("run 3 for 1");
            }
        }
    }

    @Test
    void privateResultsNeverReachRedis() throws Exception {
        try (McpServer a = node(redisA); McpServer b = node(redisB)) {
            assertThat(text(call(a, "alice", "mine", "1"))).isEqualTo("run 1 for 1");
            assertThat(text(call(b, "alice", "mine", "1"))).isEqualTo("run 2 for 1");
            assertThat(text(call(a, "alice", "mine", "1"))).as("node a's own first level").isEqualTo("run 1 for 1");
            assertThat(valueKeys()).isEmpty();
        }
    }

    @Test
    void aResultComputedAcrossAnInvalidationIsNotKept() {
        RedisResultCache level = new RedisResultCache(redisA);
        byte[] json = "{\"content\":[]}".getBytes(StandardCharsets.UTF_8);
        CacheSecondLevel.Found before = level.get(CacheSecondLevel.TOOL, "t", "2026:{}");
        assertThat(before.json()).isNull();
        level.invalidate(CacheSecondLevel.TOOL, "t");
        level.put(CacheSecondLevel.TOOL, "t", "2026:{}", json, 60_000, before);
        assertThat(level.get(CacheSecondLevel.TOOL, "t", "2026:{}").json()).isNull();

        CacheSecondLevel.Found now = level.get(CacheSecondLevel.TOOL, "t", "2026:{}");
        level.put(CacheSecondLevel.TOOL, "t", "2026:{}", json, 60_000, now);
        assertThat(level.get(CacheSecondLevel.TOOL, "t", "2026:{}").json()).isEqualTo(json);
        level.invalidate(CacheSecondLevel.TOOL, null);
        assertThat(level.get(CacheSecondLevel.TOOL, "t", "2026:{}").json()).as("a kind's invalidation").isNull();
    }

    @Test
    void withRedisDownCallsAreServedByRunningTheHandler() throws Exception {
        try (McpServer a = node(redisA)) {
            server.stop();
            try {
                assertThat(text(call(a, null, "lookup", "5"))).isEqualTo("run 1 for 5");
                assertThat(text(call(a, null, "lookup", "5"))).as("the first level still serves")
                        .isEqualTo("run 1 for 5");
            } finally {
                server.startAgain();
            }
        }
    }
}
