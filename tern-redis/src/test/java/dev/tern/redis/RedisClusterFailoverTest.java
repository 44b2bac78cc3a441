package dev.tern.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.tern.protocol.Json;
import dev.tern.protocol.McpMeta;
import dev.tern.protocol.model.CallToolResult;
import dev.tern.server.McpServer;
import dev.tern.server.TaskSupport;
import dev.tern.server.ToolSpec;
import dev.tern.testing.RedisCluster;

import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A master of a three-master Redis Cluster with replicas killed while two Tern nodes serve sessions: requests during
 * the failover are answered at once, 503 with Retry-After where they need the lost master, and once its replica took
 * over the same sessions, notices between the nodes and new tasks work again without restarting anything.
 */
class RedisClusterFailoverTest {
    /** Small, so that a replica takes over within a few seconds; the election adds about a second. */
    private static final Duration NODE_TIMEOUT = Duration.ofMillis(1_000);
    private static final ObjectNode ANY_OBJECT = (ObjectNode) Json.mapper().readTree("{\"type\":\"object\"}");

    /** The capabilities of a 2026-07-28 client that takes tasks. */
    private static final String TASKS = "{\"extensions\":{\"" + McpMeta.TASKS_EXTENSION + "\":{}}}";

    private final McpHttp mcp = new McpHttp();
    private RedisCluster cluster;
    private TernNode a;
    private TernNode b;

    @BeforeEach
    void start() throws InterruptedException {
        cluster = RedisCluster.start(1, NODE_TIMEOUT);
        a = TernNode.start(cluster.uri(), RedisClusterFailoverTest::features);
        b = TernNode.start(cluster.uri(), RedisClusterFailoverTest::features);
    }

    @AfterEach
    void stop() {
        mcp.close();
        if (a != null) {
            a.close();
        }
        if (b != null) {
            b.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    private static void features(McpServer.Builder server, Redis redis) {
        server.listChangedDelay(Duration.ofMillis(10)).taskStore(new RedisTaskStore(redis))
                .tool(ToolSpec.builder("echo").description("Says what it was given.")
                        .inputSchema((ObjectNode) Json.mapper().readTree(
                                "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}}}"))
                        .handler((ctx, args) -> CallToolResult.text("echo " + args.path("text").asString()))
                        .build())
                .tool(ToolSpec.builder("job").description("A task that ends at once.").inputSchema(ANY_OBJECT)
                        .taskSupport(TaskSupport.REQUIRED)
                        .handler((ctx, args) -> CallToolResult.text("job done")).build());
    }

    @Test
    void afterAMasterDiesItsReplicaTakesOverAndSessionsNoticesAndTasksWorkAgainWithoutARestart() throws Exception {
        List<String> sessions = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            sessions.add(mcp.initialize(i % 2 == 0 ? a : b));
        }
        BlockingQueue<JsonNode> listenOnA = mcp.listen(a, "{\"toolsListChanged\":true}");
        BlockingQueue<JsonNode> listenOnB = mcp.listen(b, "{\"toolsListChanged\":true}");
        cluster.awaitReplicated();

        int victim = masterWithASubscription();
        long sessionsOnVictim = onNode(victim, c -> c.keys("tern:{*}:s").size()).longValue();
        assertThat(sessionsOnVictim).as("sessions on the master to be killed").isPositive();

        cluster.kill(victim);
        long killedAt = System.nanoTime();

        // Every session through both nodes until all answer again: nothing hangs, what fails is a 503 with Retry-After.
        Map<Integer, Integer> statuses = new TreeMap<>();
        long slowestMillis = 0;
        boolean allAnswered = false;
        long deadline = killedAt + TimeUnit.SECONDS.toNanos(40);
        long promotedAt = 0;
        while (!allAnswered && System.nanoTime() < deadline) {
            if (promotedAt == 0 && !cluster.masters().contains(victim) && cluster.masters().size() == 3) {
                promotedAt = System.nanoTime();
            }
            allAnswered = true;
            for (int i = 0; i < sessions.size(); i++) {
                long started = System.nanoTime();
                HttpResponse<String> r = mcp.call(i % 2 == 0 ? b : a, sessions.get(i), "{\"jsonrpc\":\"2.0\",\"id\":2,"
                        + "\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"}}}");
                slowestMillis = Math.max(slowestMillis, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
                statuses.merge(r.statusCode(), 1, Integer::sum);
                if (r.statusCode() == 503) {
                    assertThat(r.headers().firstValue("retry-after")).as("a 503 says when to retry").isPresent();
                    allAnswered = false;
                } else {
                    assertThat(r.statusCode()).as("session %s: %s", sessions.get(i), r.body()).isEqualTo(200);
                    assertThat(r.body()).contains("echo hi");
                }
            }
            Thread.sleep(50);
        }
        long recoveredAt = System.nanoTime();
        assertThat(allAnswered).as("every session answered again within 40 s: %s", statuses).isTrue();
        assertThat(promotedAt).as("a replica was promoted before every session answered again").isPositive();
        System.err.printf("failover: promoted %d ms after the kill, all sessions served %d ms after the promotion;"
                + " statuses %s, slowest request %d ms%n", TimeUnit.NANOSECONDS.toMillis(promotedAt - killedAt),
                TimeUnit.NANOSECONDS.toMillis(recoveredAt - promotedAt), statuses, slowestMillis);
        assertThat(Duration.ofNanos(recoveredAt - promotedAt)).as("served again soon after the promotion")
                .isLessThan(Duration.ofSeconds(10));
        assertThat(statuses).as("requests during the failover were refused").containsKey(503);
        assertThat(slowestMillis).as("the slowest request during the failover, ms")
                .isLessThan(Redis.DEFAULT_TIMEOUT.toMillis() + 1_000);
        assertThat(cluster.masters()).as("a replica took the dead master's place").hasSize(3)
                .doesNotContain(victim);

        // Notices published after the failover reach the other node's listeners, both ways.
        a.server().addTool(ToolSpec.builder("fromA").description("Added on a.")
                .handler((ctx, args) -> CallToolResult.text("a")).build());
        assertThat(McpHttp.next(listenOnB).path("method").asString()).isEqualTo("notifications/tools/list_changed");
        b.server().addTool(ToolSpec.builder("fromB").description("Added on b.")
                .handler((ctx, args) -> CallToolResult.text("b")).build());
        assertThat(McpHttp.next(listenOnA).path("method").asString()).isEqualTo("notifications/tools/list_changed");

        // New sessions and new tasks, each seen through the other node.
        String fresh = mcp.initialize(a);
        assertThat(mcp.call(b, fresh, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}").statusCode()).isEqualTo(200);
        for (int i = 0; i < 6; i++) {
            JsonNode created = mcp.modern(a, "tools/call", "job", TASKS, "\"name\":\"job\",\"arguments\":{}");
            assertThat(created.path("result").path("resultType").asString()).as("%s", created).isEqualTo("task");
            String taskId = created.path("result").path("taskId").asString();
            JsonNode task = awaitTerminal(b, taskId);
            assertThat(task.path("status").asString()).isEqualTo("completed");
        }
    }

    /**
     * A master holding one of the nodes' subscriptions to notices, so that killing it makes that subscription move.
     * Where both landed on replicas, their connections are cut until one comes back on a master.
     */
    private int masterWithASubscription() throws InterruptedException {
        for (int attempt = 0; attempt < 20; attempt++) {
            Map<Integer, Long> subscribers = new TreeMap<>();
            for (int port : cluster.ports()) {
                subscribers.put(port, onNode(port, c -> c.pubsubNumsub(Keys.NOTICES).get(Keys.NOTICES)));
            }
            List<Integer> masters = cluster.masters();
            for (int port : masters) {
                if (subscribers.get(port) > 0) {
                    return port;
                }
            }
            for (int port : cluster.ports()) {
                if (!masters.contains(port) && subscribers.get(port) > 0) {
                    onNode(port, c -> c.clientKill(KillArgs.Builder.typePubsub()));
                }
            }
            // both subscriptions back, wherever Lettuce put them
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (cluster.ports().stream().mapToLong(p -> onNode(p, c -> c.pubsubNumsub(Keys.NOTICES)
                    .get(Keys.NOTICES))).sum() < 2) {
                assertThat(System.nanoTime()).as("the subscriptions come back").isLessThan(deadline);
                Thread.sleep(20);
            }
        }
        throw new AssertionError("no subscription to notices came to rest on a master");
    }

    private static <T> T onNode(int port, Function<RedisCommands<String, String>, T> command) {
        RedisClient client = RedisClient.create("redis://127.0.0.1:" + port);
        try (StatefulRedisConnection<String, String> c = client.connect()) {
            return command.apply(c.sync());
        } finally {
            client.shutdown();
        }
    }

    private JsonNode awaitTerminal(TernNode node, String taskId) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            JsonNode task = mcp.modern(node, "tasks/get", taskId, TASKS, "\"taskId\":\"" + taskId + "\"").path("result");
            String status = task.path("status").asString();
            if (!status.equals("working") && !status.equals("input_required")) {
                return task;
            }
            assertThat(System.nanoTime()).as("task %s finishes", taskId).isLessThan(deadline);
            Thread.sleep(20);
        }
    }
}
