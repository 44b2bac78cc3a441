package dev.tern.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

import dev.tern.protocol.ErrorCodes;
import dev.tern.protocol.Json;
import dev.tern.protocol.JsonRpcError;
import dev.tern.protocol.JsonRpcFailure;
import dev.tern.protocol.JsonRpcMessage;
import dev.tern.protocol.JsonRpcRequest;
import dev.tern.protocol.JsonRpcResponse;
import dev.tern.protocol.JsonRpcResult;
import dev.tern.protocol.McpMeta;
import dev.tern.protocol.RequestId;
import dev.tern.protocol.model.CallToolResult;
import dev.tern.server.McpServer;
import dev.tern.server.Outbound;
import dev.tern.server.StoreUnavailableException;
import dev.tern.server.TaskRecord;
import dev.tern.server.TaskStatus;
import dev.tern.server.TaskSupport;
import dev.tern.server.ToolSpec;
import dev.tern.testing.RedisCluster;
import dev.tern.testing.RedisServer;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

import tools.jackson.databind.node.ObjectNode;

/**
 * Two nodes' tasks in one Redis: a task one node runs is seen, awaited, listed and cancelled through the other. Each
 * test runs on one Redis server and again on a three-master Redis Cluster, where a task's key and its owner's set lie
 * in different slots.
 */
@ParameterizedClass(name = "on {0}")
@EnumSource(SharedTasksTest.Backend.class)
class SharedTasksTest {
    private static final String EXTENSION = McpMeta.TASKS_EXTENSION;
    private static final ObjectNode ANY_OBJECT = (ObjectNode) Json.mapper().readTree("{\"type\":\"object\"}");

    /** The Redis both nodes share. */
    enum Backend {
        ONE_SERVER, CLUSTER
    }

    @Parameter
    Backend backend;

    private static RedisServer server;
    private static RedisCluster cluster;
    private static Redis redisA;
    private static Redis redisB;

    private final AtomicInteger runs = new AtomicInteger();
    private final AtomicInteger interrupted = new AtomicInteger();
    private final List<AutoCloseable> toClose = new ArrayList<>();
    private volatile CountDownLatch release = new CountDownLatch(0);

    @BeforeParameterizedClassInvocation
    static void start(Backend backend) {
        String uri;
        if (backend == Backend.CLUSTER) {
            cluster = RedisCluster.start();
            uri = cluster.uri();
        } else {
            server = RedisServer.start();
            uri = server.uri();
        }
        redisA = Redis.connect(uri);
        redisB = Redis.connect(uri);
    }

    @AfterParameterizedClassInvocation
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
        if (cluster != null) {
            cluster.close();
        }
        redisA = redisB = null;
        server = null;
        cluster = null;
    }

    /** The plain URIs of the servers holding keys: the one server, or each master of the cluster. */
    private static List<String> masters() {
        return server != null ? List.of(server.uri())
                : cluster.masters().stream().map(p -> "redis://127.0.0.1:" + p).toList();
    }

    /** Runs {@code command} on every server holding keys and gives its answers. */
    private static <T> List<T> onEveryMaster(
            Function<RedisCommands<String, String>, T> command) {
        List<T> answers = new ArrayList<>();
        for (String uri : masters()) {
            RedisClient client = RedisClient.create(uri);
            try (StatefulRedisConnection<String, String> c = client.connect()) {
                answers.add(command.apply(c.sync()));
            } finally {
                client.shutdown();
            }
        }
        return answers;
    }

    private static void stopRedis() {
        if (server != null) {
            server.stop();
        } else {
            cluster.stop();
        }
    }

    private static void startRedisAgain() {
        if (server != null) {
            server.startAgain();
        } else {
            cluster.startAgain();
        }
    }

    @BeforeEach
    void empty() throws InterruptedException {
        awaitConnected(redisA);
        awaitConnected(redisB);
        redisA.callWithoutKey(r -> r.flushall());
    }

    @org.junit.jupiter.api.AfterEach
    void closeBuses() throws Exception {
        for (AutoCloseable c : toClose) {
            c.close();
        }
    }

    private static void awaitConnected(Redis redis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (true) {
            try {
                redis.callWithoutKey(r -> r.ping());
                return;
            } catch (StoreUnavailableException e) {
                assertThat(System.nanoTime()).as("Redis answers again: %s", e).isLessThan(deadline);
                Thread.sleep(50);
            }
        }
    }

    /** A node whose task tool "slow" waits for {@link #release} and counts its runs and its interruptions. */
    private McpServer node(Redis redis) {
        RedisNotificationBus bus = new RedisNotificationBus(redis);
        toClose.add(bus);
        return McpServer.builder().taskStore(new RedisTaskStore(redis)).notificationBus(bus)
                .tool(ToolSpec.builder("slow").inputSchema(ANY_OBJECT).taskSupport(TaskSupport.REQUIRED).handler((ctx, args) -> {
                    try {
                        release.await(20, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        interrupted.incrementAndGet();
                        throw e;
                    }
                    return CallToolResult.text("run " + runs.incrementAndGet() + " for " + args.path("id").asString(""));
                }).build())
                .build();
    }

    private static JsonRpcResponse request(McpServer node, String method, ObjectNode params) throws Exception {
        ObjectNode meta = params.putObject(McpMeta.KEY);
        meta.put(McpMeta.PROTOCOL_VERSION, "2026-07-28");
        meta.putObject(McpMeta.CLIENT_CAPABILITIES).putObject("extensions").putObject(EXTENSION);
        CompletableFuture<JsonRpcResponse> answer = new CompletableFuture<>();
        node.serve(new JsonRpcRequest(RequestId.of(1), method, params), new Outbound() {
            @Override
            public void send(JsonRpcMessage message, RequestId relatedTo) {
                if (message instanceof JsonRpcResponse r) {
                    answer.complete(r);
                }
            }

            @Override
            public String principal() {
                return null;
            }
        });
        return answer.get(20, TimeUnit.SECONDS);
    }

    private static ObjectNode result(JsonRpcResponse response) {
        assertThat(response).isInstanceOf(JsonRpcResult.class);
        return (ObjectNode) ((JsonRpcResult) response).result();
    }

    private static String startTask(McpServer node, String id) throws Exception {
        ObjectNode params = Json.object();
        params.put("name", "slow");
        params.putObject("arguments").put("id", id);
        ObjectNode created = result(request(node, "tools/call", params));
        assertThat(created.path("resultType").asString()).as("%s", created).isEqualTo("task");
        return created.path("taskId").asString();
    }

    private static ObjectNode get(McpServer node, String taskId) throws Exception {
        ObjectNode params = Json.object();
        params.put("taskId", taskId);
        return result(request(node, "tasks/get", params));
    }

    private static ObjectNode awaitTerminal(McpServer node, String taskId) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            ObjectNode task = get(node, taskId);
            String status = task.path("status").asString();
            if (!status.equals("working") && !status.equals("input_required")) {
                return task;
            }
            assertThat(System.nanoTime()).as("task %s finishes", taskId).isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    @Test
    void aTaskOneNodeRunsIsSeenWorkingAndThenCompletedThroughTheOther() throws Exception {
        release = new CountDownLatch(1);
        try (McpServer a = node(redisA); McpServer b = node(redisB)) {
            String taskId = startTask(a, "7");
            assertThat(get(b, taskId).path("status").asString()).isEqualTo("working");
            release.countDown();
            ObjectNode done = awaitTerminal(b, taskId);
            assertThat(done.path("status").asString()).isEqualTo("completed");
            assertThat(done.path("result").path("content").path(0).path("text").asString()).isEqualTo("run 1 for 7");
            assertThat(runs).hasValue(1);
        }
    }

    @Test
    void aTaskCancelledThroughAnotherNodeStopsItsHandlerOnTheNodeRunningItAndStaysCancelled() throws Exception {
        release = new CountDownLatch(1);
        try (McpServer a = node(redisA); McpServer b = node(redisB)) {
            String taskId = startTask(a, "1");
            ObjectNode params = Json.object();
            params.put("taskId", taskId);
            result(request(b, "tasks/cancel", params));
            assertThat(get(a, taskId).path("status").asString()).isEqualTo("cancelled");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (interrupted.get() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(interrupted).as("node a's handler heard of node b's cancel").hasValue(1);
            assertThat(runs).hasValue(0);
            assertThat(get(b, taskId).path("status").asString()).isEqualTo("cancelled");
        }
    }

    @Test
    void aTaskCreatedCompletedAndReadOnceCostsFiveRoundTrips() throws Exception {
        try (McpServer a = node(redisA); McpServer b = node(redisB)) {
            awaitTerminal(a, startTask(a, "warm-up"));
            onEveryMaster(r -> r.configResetstat());
            String taskId = startTask(a, "counted");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            // GETRANGE is no command a store sends, so waiting with it leaves the counts alone.
            while (!new String(redisA.<byte[]>call(Keys.task(taskId), r -> r.getrange(Keys.task(taskId), 0, -1)),
                    java.nio.charset.StandardCharsets.UTF_8).contains("COMPLETED")) {
                assertThat(System.nanoTime()).as("the task completes").isLessThan(deadline);
                Thread.sleep(10);
            }
            Thread.sleep(100);
            assertThat(get(b, taskId).path("status").asString()).isEqualTo("completed");
            String stats = String.join("\n", onEveryMaster(r -> r.info("commandstats")));
            assertThat(calls(stats, "set")).as("SET GET on creation and on completion").isEqualTo(2);
            assertThat(calls(stats, "evalsha") + calls(stats, "eval")).as("indexing the new task").isEqualTo(1);
            assertThat(calls(stats, "get")).as("completion's read, then tasks/get").isEqualTo(2);
        }
    }

    /** How often {@code command} ran, summed over the servers' statistics. */
    private static long calls(String commandStats, String command) {
        long calls = 0;
        for (String line : commandStats.split("\r?\n")) {
            if (line.startsWith("cmdstat_" + command + ":calls=")) {
                String rest = line.substring(("cmdstat_" + command + ":calls=").length());
                calls += Long.parseLong(rest.substring(0, rest.indexOf(',')));
            }
        }
        return calls;
    }

    @Test
    void aTaskCancelNoticeCrossesTheBus() {
        byte[] wire = RedisNotificationBus.encode("0123456789abcdef", new dev.tern.server.NotificationBus.TaskCancelled("t-1"));
        assertThat(RedisNotificationBus.decode(wire)).isEqualTo(new dev.tern.server.NotificationBus.TaskCancelled("t-1"));
    }

    @Test
    void aNodeFindsTheTasksTheOthersCreatedOldestFirstAndNotThoseExpired() throws Exception {
        RedisTaskStore a = new RedisTaskStore(redisA);
        RedisTaskStore b = new RedisTaskStore(redisB);
        Instant now = Instant.now();
        TaskRecord first = new TaskRecord("t1", "alice", TaskStatus.WORKING, null, now.minusSeconds(2), now, 60_000L,
                1000, null, null, null);
        TaskRecord second = new TaskRecord("t2", "alice", TaskStatus.FAILED, "boom", now.minusSeconds(1), now, null,
                1000, null, JsonRpcError.of(ErrorCodes.INTERNAL_ERROR, "Internal error"), null);
        TaskRecord expiring = new TaskRecord("t3", "alice", TaskStatus.WORKING, null, now, now, 1_500L, 1000, null, null,
                null);
        TaskRecord others = new TaskRecord("t4", "bob", TaskStatus.WORKING, null, now, now, 60_000L, 1000, null, null,
                null);
        a.save(second);
        a.save(first);
        a.save(expiring);
        a.save(others);
        assertThat(b.find("t2")).contains(second);
        assertThat(b.list("alice")).extracting(TaskRecord::taskId).containsExactly("t1", "t2", "t3");
        Thread.sleep(Math.max(0, now.plusMillis(1_600).toEpochMilli() - System.currentTimeMillis()));
        assertThat(b.find("t3")).isEmpty();
        assertThat(b.list("alice")).containsExactly(first, second);
        assertThat(redisB.<Long>call(Keys.ownerTasks("alice"), r -> r.zcard(Keys.ownerTasks("alice"))).longValue()).as("the expired id left the index").isEqualTo(2L);
        assertThat(redisB.<Long>call(Keys.ownerTasks("alice"), r -> r.pttl(Keys.ownerTasks("alice"))).longValue()).as("a task kept for ever keeps its index").isEqualTo(-1L);
        assertThat(redisB.<Long>call(Keys.ownerTasks("bob"), r -> r.pttl(Keys.ownerTasks("bob"))).longValue()).isBetween(1L, 60_000L);
        b.delete("t1");
        assertThat(a.list("alice")).containsExactly(second);
    }

    @Test
    void withRedisDownCreatingATaskFailsFastInsteadOfWaiting() throws Exception {
        try (McpServer a = node(redisA)) {
            stopRedis();
            try {
                for (int i = 0; i < 5; i++) {
                    long started = System.nanoTime();
                    ObjectNode params = Json.object();
                    params.put("name", "slow");
                    params.putObject("arguments").put("id", "x");
                    JsonRpcResponse response = request(a, "tools/call", params);
                    assertThat(response).isInstanceOf(JsonRpcFailure.class);
                    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Redis.DEFAULT_TIMEOUT.plusSeconds(1));
                }
                assertThat(runs).as("no handler ran for a task that could not be saved").hasValue(0);
            } finally {
                startRedisAgain();
            }
        }
    }
}
