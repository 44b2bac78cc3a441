package dev.tern.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.tern.protocol.Json;
import dev.tern.protocol.model.CallToolResult;
import dev.tern.server.McpServer;
import dev.tern.server.ToolSpec;
import dev.tern.testing.RedisCluster;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import tools.jackson.databind.node.ObjectNode;

/**
 * A master of a three-master Redis Cluster without replicas killed while two Tern nodes serve sessions, so that its
 * slots stay without a master: the sessions on the other masters go on answering 200 throughout, those on the dead
 * master get fast 503s with Retry-After, and once the master is started again both nodes serve its slots again
 * without a restart.
 */
class RedisClusterDeadMasterTest {
    /** Small, so that the cluster marks the dead master failed (and Tern's nodes leave it out) within seconds. */
    private static final Duration NODE_TIMEOUT = Duration.ofMillis(1_000);
    /** How long the master stays dead once the cluster marked it failed. */
    private static final Duration DEAD_AFTER_FAIL = Duration.ofSeconds(3);
    private static final int SESSIONS = 45;
    private static final long BOUND_MILLIS = Redis.DEFAULT_TIMEOUT.toMillis() + 1_000;
    private static final String ECHO = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\","
            + "\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"}}}";

    private final McpHttp mcp = new McpHttp();
    private RedisCluster cluster;
    private TernNode a;
    private TernNode b;

    @BeforeEach
    void start() throws InterruptedException {
        cluster = RedisCluster.start(0, NODE_TIMEOUT);
        // without it, the healthy masters would refuse every slot (CLUSTERDOWN) once one slot has no master
        for (int port : cluster.ports()) {
            String answer = onNode(port, c -> c.configSet("cluster-require-full-coverage", "no"));
            assertThat(answer).isEqualTo("OK");
        }
        a = TernNode.start(cluster.uri(), RedisClusterDeadMasterTest::features);
        b = TernNode.start(cluster.uri(), RedisClusterDeadMasterTest::features);
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
        server.tool(ToolSpec.builder("echo").description("Says what it was given.")
                .inputSchema((ObjectNode) Json.mapper().readTree(
                        "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}}}"))
                .handler((ctx, args) -> CallToolResult.text("echo " + args.path("text").asString()))
                .build());
    }

    @Test
    void whileAMasterIsDeadOnlyTheSessionsInItsSlotsGet503sAndItsSlotsAreServedAgainOnceItIsBack() throws Exception {
        List<String> sessions = new ArrayList<>();
        for (int i = 0; i < SESSIONS; i++) {
            sessions.add(mcp.initialize(i % 2 == 0 ? a : b));
        }
        List<Integer> masters = cluster.masters();
        int victim = masters.getFirst();
        Set<String> dead = sessionsOn(victim);
        for (int port : masters) {
            assertThat(sessionsOn(port)).as("sessions on master %d", port).isNotEmpty();
        }

        cluster.kill(victim);
        long killedAt = System.nanoTime();

        // Every session through the node that did not open it, until the master has been marked failed for a while.
        Map<Integer, Integer> healthyStatuses = new TreeMap<>();
        Map<Integer, Integer> deadStatuses = new TreeMap<>();
        List<Long> deadMillis = new ArrayList<>();
        long slowestHealthyMillis = 0;
        long failedAt = 0;
        long deadline = killedAt + TimeUnit.SECONDS.toNanos(30);
        while (failedAt == 0 || System.nanoTime() - failedAt < DEAD_AFTER_FAIL.toNanos()) {
            assertThat(System.nanoTime()).as("the cluster marks the dead master failed").isLessThan(deadline);
            if (failedAt == 0 && !cluster.masters().contains(victim)) {
                failedAt = System.nanoTime();
            }
            for (int i = 0; i < sessions.size(); i++) {
                String session = sessions.get(i);
                long started = System.nanoTime();
                HttpResponse<String> r = mcp.call(i % 2 == 0 ? b : a, session, ECHO);
                long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
                long sinceKill = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
                if (dead.contains(session)) {
                    deadStatuses.merge(r.statusCode(), 1, Integer::sum);
                    deadMillis.add(tookMillis);
                    assertThat(r.statusCode()).as("session %s on the dead master, %d ms after the kill: %s",
                            session, sinceKill, r.body()).isEqualTo(503);
                    assertThat(r.headers().firstValue("retry-after")).as("a 503 says when to retry").isPresent();
                    assertThat(tookMillis).as("a refusal within the bound, ms").isLessThan(BOUND_MILLIS);
                } else {
                    healthyStatuses.merge(r.statusCode(), 1, Integer::sum);
                    slowestHealthyMillis = Math.max(slowestHealthyMillis, tookMillis);
                    assertThat(r.statusCode()).as("session %s on a live master, %d ms after the kill: %s", session,
                            sinceKill, r.body()).isEqualTo(200);
                    assertThat(r.body()).contains("echo hi");
                }
            }
            assertThat(mcp.modern(a, "tools/call", "echo", "{}", "\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"}")
                    .path("result").toString()).as("a stateless call").contains("echo hi");
            Thread.sleep(20);
        }
        deadMillis.sort(null);
        System.err.printf("dead master: marked failed %d ms after the kill; live masters' sessions %s, slowest %d ms;"
                + " dead master's sessions %s, median %d ms, slowest %d ms%n",
                TimeUnit.NANOSECONDS.toMillis(failedAt - killedAt), healthyStatuses, slowestHealthyMillis,
                deadStatuses, deadMillis.get(deadMillis.size() / 2), deadMillis.getLast());

        // The master back, empty: its sessions are gone (404, so that their clients initialize again), none waits.
        cluster.startAgain();
        long restartedAt = System.nanoTime();
        deadline = restartedAt + TimeUnit.SECONDS.toNanos(30);
        Map<Integer, Integer> afterStatuses = new TreeMap<>();
        boolean recovered = false;
        while (!recovered) {
            assertThat(System.nanoTime()).as("the dead master's sessions answered again: %s", afterStatuses)
                    .isLessThan(deadline);
            recovered = true;
            for (int i = 0; i < sessions.size(); i++) {
                String session = sessions.get(i);
                HttpResponse<String> r = mcp.call(i % 2 == 0 ? a : b, session, ECHO);
                if (dead.contains(session)) {
                    afterStatuses.merge(r.statusCode(), 1, Integer::sum);
                    assertThat(r.statusCode()).as("session %s: %s", session, r.body()).isIn(404, 503);
                    recovered &= r.statusCode() == 404;
                } else {
                    assertThat(r.statusCode()).as("session %s: %s", session, r.body()).isEqualTo(200);
                }
            }
            Thread.sleep(50);
        }
        System.err.printf("master back: its sessions answered 404 %d ms after it was up (statuses %s)%n",
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - restartedAt), afterStatuses);

        // New sessions in the revived master's slots, opened on one node and served by the other.
        String fresh = null;
        for (int i = 0; i < 60 && fresh == null; i++) {
            String s = mcp.initialize(i % 2 == 0 ? a : b);
            if (sessionsOn(victim).contains(s)) {
                fresh = s;
                HttpResponse<String> r = mcp.call(i % 2 == 0 ? b : a, s, ECHO);
                assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            }
        }
        assertThat(fresh).as("a new session on the revived master").isNotNull();
    }

    /** The ids of the sessions whose keys the master on {@code port} holds. */
    private static Set<String> sessionsOn(int port) {
        return onNode(port, c -> c.keys(Keys.session("*"))).stream()
                .map(key -> key.substring(key.indexOf('{') + 1, key.lastIndexOf('}'))).collect(Collectors.toSet());
    }

    private static <T> T onNode(int port, Function<RedisCommands<String, String>, T> command) {
        RedisClient client = RedisClient.create("redis://127.0.0.1:" + port);
        try (StatefulRedisConnection<String, String> c = client.connect()) {
            return command.apply(c.sync());
        } finally {
            client.shutdown();
        }
    }
}
