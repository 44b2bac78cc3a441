package dev.tern.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.tern.protocol.Json;
import dev.tern.protocol.model.CallToolResult;
import dev.tern.server.CacheScope;
import dev.tern.server.McpServer;
import dev.tern.server.NotificationBus;
import dev.tern.server.ToolSpec;
import dev.tern.testing.RedisCluster;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Two Tern nodes on a three-master Redis Cluster: sessions, resumable streams, notices and cached results are shared
 * as on one Redis server, and sessions spread over the masters.
 */
class RedisClusterTest {
    private static RedisCluster cluster;
    private final McpHttp mcp = new McpHttp();
    private final HttpClient http = mcp.client();
    private final CountDownLatch release = new CountDownLatch(1);
    private final AtomicInteger computed = new AtomicInteger();
    private TernNode a;
    private TernNode b;

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.start();
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @BeforeEach
    void startNodes() throws InterruptedException {
        a = TernNode.start(cluster.uri(), this::features);
        b = TernNode.start(cluster.uri(), this::features);
    }

    @AfterEach
    void stopNodes() {
        release.countDown();
        mcp.close();
        if (a != null) {
            a.close();
        }
        if (b != null) {
            b.close();
        }
    }

    private void features(McpServer.Builder server, Redis redis) {
        server.listChangedDelay(Duration.ofMillis(10)).cacheSecondLevel(new RedisResultCache(redis))
                .tool(ToolSpec.builder("steps").description("Progress, a pause, more progress, then the result.")
                        .handler((ctx, args) -> {
                            ctx.progress(1, 3.0, "one");
                            release.await(10, TimeUnit.SECONDS);
                            ctx.progress(2, 3.0, "two");
                            ctx.progress(3, 3.0, "three");
                            return CallToolResult.text("all steps done");
                        }).build())
                .tool(ToolSpec.builder("echo").description("Says what it was given.")
                        .inputSchema((ObjectNode) Json.mapper().readTree(
                                "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}}}"))
                        .handler((ctx, args) -> CallToolResult.text("echo " + args.path("text").asString()))
                        .build())
                .tool(ToolSpec.builder("computed").description("Counts how often it ran; its result is public.")
                        .inputSchema((ObjectNode) Json.mapper().readTree("{\"type\":\"object\"}"))
                        .cache(Duration.ofMinutes(5), CacheScope.PUBLIC)
                        .handler((ctx, args) -> CallToolResult.text("run " + computed.incrementAndGet())).build());
    }

    @Test
    void sessionsOpenedOnOneNodeAreServedByTheOtherAndSpreadOverTheMasters() throws Exception {
        List<String> sessions = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            sessions.add(mcp.initialize(a));
        }

        for (String session : sessions) {
            HttpResponse<String> onB = mcp.call(b, session, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\","
                    + "\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"}}}");
            assertThat(onB.statusCode()).isEqualTo(200);
            assertThat(onB.body()).contains("echo hi");
        }

        List<Integer> perMaster = new ArrayList<>();
        for (int master = 0; master < 3; master++) {
            RedisClient client = RedisClient.create(cluster.nodeUri(master));
            try (StatefulRedisConnection<String, String> node = client.connect()) {
                perMaster.add((int) node.sync().keys("tern:{*}:s").stream()
                        .filter(k -> sessions.contains(k.substring("tern:{".length(), k.length() - "}:s".length())))
                        .count());
            } finally {
                client.shutdown();
            }
        }
        assertThat(perMaster.stream().mapToInt(Integer::intValue).sum()).as("each session once, on one master")
                .isEqualTo(sessions.size());
        assertThat(perMaster.stream().filter(n -> n > 0).count()).as("sessions on several masters: %s", perMaster)
                .isGreaterThanOrEqualTo(2);
    }

    @Test
    void aSessionDeletedOnOneNodeIsGoneOnTheOtherWithItsStreams() throws Exception {
        String session = mcp.initialize(a);
        HttpResponse<Stream<String>> streamed = http.send(mcp.post(a, session, "{\"jsonrpc\":\"2.0\",\"id\":2,"
                + "\"method\":\"tools/call\",\"params\":{\"name\":\"steps\",\"_meta\":{\"progressToken\":\"p\"}}}")
                .build(), HttpResponse.BodyHandlers.ofLines());
        mcp.keep(streamed);
        McpHttp.readUntil(streamed.body().iterator(), "\"message\":\"one\"");
        assertThat(a.redis().commands().keys("tern:{" + session + "}:*")).as("the session and its events")
                .hasSizeGreaterThanOrEqualTo(3);

        HttpResponse<String> deleted = http.send(HttpRequest.newBuilder(URI.create(b.url())).DELETE()
                .header("Mcp-Session-Id", session).header("MCP-Protocol-Version", "2025-11-25").build(),
                HttpResponse.BodyHandlers.ofString());

        assertThat(deleted.statusCode()).isEqualTo(200);
        assertThat(mcp.call(a, session, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}").statusCode()).isEqualTo(404);
        assertThat(b.redis().commands().keys("tern:{" + session + "}:*")).isEmpty();
    }

    @Test
    void aStreamLostOnOneNodeIsResumedOnTheOtherWithExactlyTheMissedEvents() throws Exception {
        String session = mcp.initialize(a);
        HttpResponse<Stream<String>> streamed = http.send(mcp.post(a, session, "{\"jsonrpc\":\"2.0\",\"id\":2,"
                + "\"method\":\"tools/call\",\"params\":{\"name\":\"steps\",\"_meta\":{\"progressToken\":\"p\"}}}")
                .build(), HttpResponse.BodyHandlers.ofLines());
        List<String> before = McpHttp.readUntil(streamed.body().iterator(), "\"message\":\"one\"");
        String lastSeen = McpHttp.lastId(before);
        streamed.body().close();
        release.countDown();
        Thread.sleep(300);

        HttpResponse<Stream<String>> resumed = http.send(HttpRequest.newBuilder(URI.create(b.url())).GET()
                .header("Accept", "text/event-stream").header("Mcp-Session-Id", session)
                .header("MCP-Protocol-Version", "2025-11-25").header("Last-Event-ID", lastSeen)
                .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofLines());
        mcp.keep(resumed);

        assertThat(resumed.statusCode()).isEqualTo(200);
        String data = String.join("\n", McpHttp.readUntil(resumed.body().iterator(), "all steps done"));
        assertThat(data).doesNotContain("\"message\":\"one\"").contains("\"message\":\"two\"", "\"message\":\"three\"",
                "all steps done");
        assertThat(data.indexOf("\"message\":\"two\"")).isLessThan(data.indexOf("\"message\":\"three\""));
    }

    @Test
    void aListChangeOnOneNodeReachesAListenOnTheOtherOnce() throws Exception {
        BlockingQueue<JsonNode> listen = mcp.listen(a, "{\"toolsListChanged\":true}");

        b.server().addTool(ToolSpec.builder("added").description("Added at run time.")
                .handler((ctx, args) -> CallToolResult.text("added")).build());

        assertThat(McpHttp.next(listen).path("method").asString()).isEqualTo("notifications/tools/list_changed");
        assertThat(listen.poll(500, TimeUnit.MILLISECONDS)).as("nothing arrives twice").isNull();
    }

    @Test
    void aNoticeIsHeardThroughEveryMasterOfTheCluster() throws Exception {
        List<String> heard = new CopyOnWriteArrayList<>();
        List<RedisClient> clients = new ArrayList<>();
        try {
            for (int master = 0; master < 3; master++) {
                RedisClient client = RedisClient.create(cluster.nodeUri(master));
                clients.add(client);
                StatefulRedisPubSubConnection<String, String> spy = client.connectPubSub();
                int which = master;
                spy.addListener(new RedisPubSubAdapter<>() {
                    @Override
                    public void message(String channel, String message) {
                        heard.add(which + ":" + message.substring(16));
                    }
                });
                spy.sync().subscribe(Keys.NOTICES);
            }
            List<NotificationBus.Notice> ofB = new CopyOnWriteArrayList<>();
            b.bus().subscribe(ofB::add);

            a.bus().publish(new NotificationBus.ListChanged("prompts"));

            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while ((heard.size() < 3 || ofB.isEmpty()) && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            Thread.sleep(200);
            assertThat(heard).containsExactlyInAnyOrder("0:lprompts", "1:lprompts", "2:lprompts");
            assertThat(ofB).containsExactly(new NotificationBus.ListChanged("prompts"));
        } finally {
            clients.forEach(RedisClient::shutdown);
        }
    }

    @Test
    void aPublicResultOneNodeComputedIsServedByTheOtherFromTheCluster() throws Exception {
        String first = text(mcp.modern(a, "tools/call", "computed", "{}", "\"name\":\"computed\",\"arguments\":{\"k\":1}"));
        String onB = text(mcp.modern(b, "tools/call", "computed", "{}", "\"name\":\"computed\",\"arguments\":{\"k\":1}"));
        String other = text(mcp.modern(b, "tools/call", "computed", "{}", "\"name\":\"computed\",\"arguments\":{\"k\":2}"));

        assertThat(first).isEqualTo("run 1");
        assertThat(onB).as("served from Redis, not run again").isEqualTo("run 1");
        assertThat(other).as("other arguments run").isEqualTo("run 2");

        a.server().invalidateTool("computed");
        assertThat(text(mcp.modern(a, "tools/call", "computed", "{}", "\"name\":\"computed\",\"arguments\":{\"k\":1}")))
                .as("after the invalidation, the old result is not found in Redis").isEqualTo("run 3");
    }

    private static String text(JsonNode reply) {
        assertThat(reply.has("result")).as("%s", reply).isTrue();
        return reply.path("result").path("content").get(0).path("text").asString();
    }
}
