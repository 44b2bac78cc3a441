package dev.tern.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import dev.tern.protocol.Json;
import dev.tern.protocol.model.CallToolResult;
import dev.tern.server.McpServer;
import dev.tern.server.ToolSpec;
import dev.tern.testing.RedisServer;
import dev.tern.transport.http.HttpServerTransport;

import tools.jackson.databind.node.ObjectNode;

/**
 * Redis stopped under a bounded load and started again: what needs a session gets a fast 503 with Retry-After,
 * stateless 2026-07-28 calls go on, no request hangs, and the node serves sessions again once Redis is back.
 */
class RedisOutageTest {
    private static final Duration OUTAGE = Duration.ofSeconds(4);
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .executor(Executors.newVirtualThreadPerTaskExecutor()).build();

    @Test
    void whileRedisIsDownSessionsGetFast503sStatelessCallsGoOnAndAllRecovers() throws Exception {
        ObjectNode schema = (ObjectNode) Json.mapper().readTree(
                "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}}}");
        McpServer server = McpServer.builder().tool(ToolSpec.builder("echo").description("Says what it was given.")
                .inputSchema(schema).handler((ctx, a) -> CallToolResult.text("echo " + a.path("text").asString()))
                .build()).build();
        try (RedisServer redisServer = RedisServer.start(); Redis redis = Redis.connect(redisServer.uri())) {
            HttpServerTransport transport = HttpServerTransport.builder(server).port(0)
                    .sessions(s -> s.store(new RedisSessionStore(redis)).eventStore(new RedisEventStore(redis)))
                    .build().start();
            try {
                String url = transport.url();
                String session = initialize(url);
                assertThat(legacyCall(url, session).statusCode()).isEqualTo(200);
                int threadsBefore = Thread.activeCount();

                redisServer.stop();
                Map<Integer, AtomicInteger> legacyStatuses = new ConcurrentHashMap<>();
                Map<Integer, AtomicInteger> modernStatuses = new ConcurrentHashMap<>();
                AtomicInteger withoutRetryAfter = new AtomicInteger();
                AtomicLong slowestMillis = new AtomicLong();
                long end = System.nanoTime() + OUTAGE.toNanos();
                List<Future<?>> clients = new ArrayList<>();
                try (var pool = Executors.newFixedThreadPool(4)) {
                    for (int c = 0; c < 4; c++) {
                        clients.add(pool.submit(() -> {
                            for (int i = 0; i < 2_000 && System.nanoTime() < end; i++) {
                                long started = System.nanoTime();
                                HttpResponse<String> legacy = legacyCall(url, session);
                                HttpResponse<String> modern = modernCall(url);
                                slowestMillis.accumulateAndGet(
                                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started), Math::max);
                                legacyStatuses.computeIfAbsent(legacy.statusCode(), k -> new AtomicInteger())
                                        .incrementAndGet();
                                modernStatuses.computeIfAbsent(modern.statusCode(), k -> new AtomicInteger())
                                        .incrementAndGet();
                                if (legacy.statusCode() == 503 && legacy.headers().firstValue("retry-after").isEmpty()) {
                                    withoutRetryAfter.incrementAndGet();
                                }
                                Thread.sleep(5);
                            }
                            return null;
                        }));
                    }
                    for (Future<?> f : clients) {
                        f.get(OUTAGE.toSeconds() + 30, TimeUnit.SECONDS);
                    }
                }
                int threadsDuring = Thread.activeCount();
                redisServer.startAgain();

                assertThat(legacyStatuses.keySet()).as("legacy statuses %s", legacyStatuses).containsOnly(503);
                assertThat(withoutRetryAfter.get()).isZero();
                assertThat(modernStatuses.keySet()).as("2026-07-28 statuses %s", modernStatuses).containsOnly(200);
                assertThat(slowestMillis.get()).as("the slowest pair of calls, ms").isLessThan(
                        Redis.DEFAULT_TIMEOUT.toMillis() + 1_000);
                assertThat(threadsDuring - threadsBefore).as("threads piled up").isLessThan(20);

                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                String fresh = null;
                while (fresh == null && System.nanoTime() < deadline) {
                    try {
                        fresh = initialize(url);
                    } catch (AssertionError stillDown) {
                        Thread.sleep(100);
                    }
                }
                assertThat(fresh).as("a session opened once Redis was back").isNotNull();
                assertThat(legacyCall(url, fresh).statusCode()).isEqualTo(200);
                assertThat(legacyCall(url, session).statusCode())
                        .as("the old session went with Redis's memory: not found, not an error").isEqualTo(404);
            } finally {
                transport.close();
                server.close();
            }
        }
    }

    @Test
    void anInitializeWhileRedisIsDownIsAnswered503WithRetryAfterLikeOtherSessionCalls() throws Exception {
        McpServer server = McpServer.builder().build();
        try (RedisServer redisServer = RedisServer.start(); Redis redis = Redis.connect(redisServer.uri())) {
            HttpServerTransport transport = HttpServerTransport.builder(server).port(0)
                    .sessions(s -> s.store(new RedisSessionStore(redis)).eventStore(new RedisEventStore(redis)))
                    .build().start();
            try {
                String url = transport.url();
                redisServer.stop();
                for (int i = 0; i < 5; i++) {
                    long started = System.nanoTime();
                    HttpResponse<String> init = http.send(post(url, null, INITIALIZE).build(),
                            HttpResponse.BodyHandlers.ofString());
                    assertThat(init.statusCode()).as(init.body()).isEqualTo(503);
                    assertThat(init.headers().firstValue("retry-after")).contains("2");
                    assertThat(Json.mapper().readTree(init.body()).path("id").asInt()).isEqualTo(1);
                    assertThat(Duration.ofNanos(System.nanoTime() - started))
                            .isLessThan(Redis.DEFAULT_TIMEOUT.plusSeconds(1));
                }
                redisServer.startAgain();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                String fresh = null;
                while (fresh == null && System.nanoTime() < deadline) {
                    try {
                        fresh = initialize(url);
                    } catch (AssertionError stillDown) {
                        Thread.sleep(100);
                    }
                }
                assertThat(fresh).as("a session opened once Redis was back").isNotNull();
            } finally {
                transport.close();
                server.close();
            }
        }
    }

    private static final String INITIALIZE = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
            + "\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
            + "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}";

    private String initialize(String url) throws Exception {
        HttpResponse<String> init = http.send(post(url, null, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
                + "\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                + "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}").build(), HttpResponse.BodyHandlers.ofString());
        assertThat(init.statusCode()).isEqualTo(200);
        assertThat(init.body()).contains("\"result\"");
        return init.headers().firstValue("mcp-session-id").orElseThrow();
    }

    private HttpResponse<String> legacyCall(String url, String session) throws Exception {
        return http.send(post(url, session, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\","
                + "\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"}}}").build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> modernCall(String url) throws Exception {
        return http.send(post(url, null, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":"
                + "{\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"},\"_meta\":{"
                + "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                + "\"io.modelcontextprotocol/clientCapabilities\":{}}}}")
                .header("MCP-Protocol-Version", "2026-07-28").header("Mcp-Method", "tools/call")
                .header("Mcp-Name", "echo").build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpRequest.Builder post(String url, String session, String body) {
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20))
                .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (session != null) {
            r.header("Mcp-Session-Id", session).header("MCP-Protocol-Version", "2025-11-25");
        }
        return r;
    }
}
