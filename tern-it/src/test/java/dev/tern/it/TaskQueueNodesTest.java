package dev.tern.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

import dev.tern.protocol.Json;
import dev.tern.testing.RedisCluster;
import dev.tern.testing.RedisServer;

import io.lettuce.core.Range;
import io.lettuce.core.RedisClient;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code tern serve --redis} nodes sharing the task queue: a killed node's tasks are finished by the other, each
 * exactly once; a task that brings its node down ends failed in the dead-letter stream; creating a task while Redis
 * is down is answered 503 until it is back; a node stopped with SIGTERM hands its tasks to the other at once. The
 * first two run on one redis-server and on a three-master Redis Cluster.
 */
class TaskQueueNodesTest {
    private static final String SECRET = "a secret every node of this test shares (32+ bytes)";
    private static final String QUEUE = "tern:{tasks}:q";
    private static final String DEAD = "tern:{tasks}:dead";

    @TempDir
    Path temp;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    /** A node serving {@link QueuedWork}'s tools, sharing tasks through {@code redis}. */
    private TernProcess node(RedisServer redis, String... options) throws Exception {
        return node(redis.uri(), options);
    }

    /** A node serving {@link QueuedWork}'s tools, sharing tasks through the Redis at {@code redisUri}. */
    private TernProcess node(String redisUri, String... options) throws Exception {
        Path classes = temp.resolve("classes");
        Path listed = classes.resolve("META-INF/tern/annotated-classes");
        Files.createDirectories(listed.getParent());
        Files.writeString(listed, QueuedWork.class.getName() + "\n");
        List<String> args = new ArrayList<>(List.of("--classpath", classes.toString(), "--redis", redisUri,
                "--secret", SECRET, "--no-rest"));
        args.addAll(List.of(options));
        return TernProcess.serve(args.toArray(String[]::new));
    }

    private Path runs() throws Exception {
        return Files.createDirectories(temp.resolve("runs"));
    }

    private static HttpRequest request(String url, String method, String name, ObjectNode params) {
        ObjectNode meta = params.putObject("_meta");
        meta.put("io.modelcontextprotocol/protocolVersion", "2026-07-28");
        meta.putObject("io.modelcontextprotocol/clientCapabilities").putObject("extensions")
                .putObject("io.modelcontextprotocol/tasks");
        ObjectNode body = Json.object();
        body.put("jsonrpc", "2.0");
        body.put("id", 1);
        body.put("method", method);
        body.set("params", params);
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
                .header("MCP-Protocol-Version", "2026-07-28").header("Mcp-Method", method)
                .POST(HttpRequest.BodyPublishers.ofString(body.toString()));
        if (name != null) {
            r.header("Mcp-Name", name);
        }
        return r.build();
    }

    private static HttpRequest create(String url, String tool, ObjectNode arguments) {
        ObjectNode params = Json.object();
        params.put("name", tool);
        params.set("arguments", arguments);
        return request(url, "tools/call", tool, params);
    }

    private static ObjectNode work(String id, long millis, Path runs) {
        ObjectNode arguments = Json.object();
        arguments.put("id", id);
        arguments.put("millis", millis);
        arguments.put("dir", runs.toString());
        return arguments;
    }

    /** The created task's id, from a {@code tools/call} answered with a task. */
    private static String taskId(HttpResponse<String> created) {
        assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
        JsonNode result = Json.mapper().readTree(created.body()).path("result");
        assertThat(result.path("resultType").asString()).as(created.body()).isEqualTo("task");
        return result.path("taskId").asString();
    }

    private JsonNode get(String url, String taskId) throws Exception {
        ObjectNode params = Json.object();
        params.put("taskId", taskId);
        HttpResponse<String> answer = http.send(request(url, "tasks/get", taskId, params), HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        return Json.mapper().readTree(answer.body()).path("result");
    }

    /** Polls {@code tasks/get} through {@code url} until every task is final; answers them by task id. */
    private Map<String, JsonNode> awaitFinal(String url, List<String> taskIds, Duration within) throws Exception {
        Map<String, JsonNode> done = new HashMap<>();
        long deadline = System.nanoTime() + within.toNanos();
        while (done.size() < taskIds.size()) {
            for (String id : taskIds) {
                if (!done.containsKey(id)) {
                    JsonNode task = get(url, id);
                    String status = task.path("status").asString();
                    if (!status.equals("working") && !status.equals("input_required")) {
                        done.put(id, task);
                    }
                }
            }
            assertThat(System.nanoTime()).as("%d of %d tasks are final", done.size(), taskIds.size())
                    .isLessThan(deadline);
            if (done.size() < taskIds.size()) {
                Thread.sleep(250);
            }
        }
        return done;
    }

    /** The process ids of the runs of a task, one a line, as {@link QueuedWork} recorded them. */
    private static List<Long> runsOf(Path runs, String id) throws Exception {
        Path file = runs.resolve(id);
        return Files.exists(file) ? Files.readAllLines(file, StandardCharsets.US_ASCII).stream().map(Long::parseLong).toList()
                : List.of();
    }

    private static String text(JsonNode task) {
        return task.path("result").path("content").path(0).path("text").asString();
    }

    /**
     * Where the nodes share their tasks: one redis-server, or a three-master Redis Cluster; {@code peek} makes a plain
     * client of it, to look at the queue's streams.
     */
    private record Backend(String uri, Supplier<Peek> peek, AutoCloseable stop) implements AutoCloseable {
        static Backend of(String kind) {
            if (kind.equals("cluster")) {
                RedisCluster cluster = RedisCluster.start();
                return new Backend(cluster.uri(), () -> {
                    RedisClusterClient client = RedisClusterClient.create(cluster.nodeUri(0));
                    StatefulRedisClusterConnection<String, String> connection = client.connect();
                    return new Peek(connection.sync(), () -> {
                        connection.close();
                        client.shutdown();
                    });
                }, cluster);
            }
            RedisServer redis = RedisServer.start();
            return new Backend(redis.uri(), () -> {
                RedisClient client = RedisClient.create(redis.uri());
                StatefulRedisConnection<String, String> connection = client.connect();
                return new Peek(connection.sync(), () -> {
                    connection.close();
                    client.shutdown();
                });
            }, redis);
        }

        @Override
        public void close() throws Exception {
            stop.close();
        }
    }

    /** A plain Redis client, to look at the queue's streams. */
    private record Peek(RedisClusterCommands<String, String> redis, Runnable closer) implements AutoCloseable {
        long queued(String stream) {
            return redis.xlen(stream);
        }

        @Override
        public void close() {
            closer.run();
        }
    }

    @ParameterizedTest(name = "on {0}")
    @ValueSource(strings = {"server", "cluster"})
    void everyOneOfAThousandTasksCompletesExactlyOnceWhenANodeIsKilledWhileTheyRun(String kind) throws Exception {
        int tasks = 1_000;
        Path runs = runs();
        try (Backend redis = Backend.of(kind);
                TernProcess a = node(redis.uri(), "--redis-task-lease", "2s");
                TernProcess b = node(redis.uri(), "--redis-task-lease", "2s");
                Peek client = redis.peek().get()) {
            long pidA = a.process().pid();
            long pidB = b.process().pid();
            long began = System.nanoTime();
            // Task i is created on node a when i is even, on b when odd; a creation refused 503 (Redis slow on a
            // loaded machine) is retried after a moment as a client would, under a name of its own so that a task
            // left by the refused attempt is not counted as a run of this one.
            Map<String, String> nameOf = new ConcurrentHashMap<>();
            Map<String, Integer> numberOf = new ConcurrentHashMap<>();
            Semaphore inFlight = new Semaphore(8);
            List<CompletableFuture<Void>> creations = new ArrayList<>();
            for (int i = 0; i < tasks; i++) {
                inFlight.acquire();
                int n = i;
                creations.add(CompletableFuture.runAsync(() -> {
                    try {
                        for (int attempt = 0; ; attempt++) {
                            String name = "t" + n + "-" + attempt;
                            HttpResponse<String> created = http.send(create(n % 2 == 0 ? a.url() : b.url(), "work",
                                    work(name, 3_000, runs)), HttpResponse.BodyHandlers.ofString());
                            if (created.statusCode() == 503 && attempt < 10) {
                                Thread.sleep(500);
                                continue;
                            }
                            String id = taskId(created);
                            nameOf.put(id, name);
                            numberOf.put(id, n);
                            return;
                        }
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    } finally {
                        inFlight.release();
                    }
                }, java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()));
            }
            CompletableFuture.allOf(creations.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            long killed = System.nanoTime();
            a.process().destroyForcibly().waitFor(10, TimeUnit.SECONDS);

            // An entry leaves the queue once its task's result is stored: an empty queue means every task is final.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(45);
            while (client.queued(QUEUE) > 0) {
                assertThat(System.nanoTime()).as("%d tasks still queued", client.queued(QUEUE)).isLessThan(deadline);
                Thread.sleep(100);
            }
            long emptied = System.nanoTime();
            Map<String, JsonNode> done = awaitFinal(b.url(), List.copyOf(nameOf.keySet()), Duration.ofSeconds(30));
            System.err.printf("created %d tasks in %s; queue empty %s after the kill; %s to check them%n", tasks,
                    Duration.ofNanos(killed - began), Duration.ofNanos(emptied - killed),
                    Duration.ofNanos(System.nanoTime() - emptied));
            assertThat(done).hasSize(tasks);
            int rerun = 0;
            for (Map.Entry<String, JsonNode> e : done.entrySet()) {
                String name = nameOf.get(e.getKey());
                boolean createdOnA = numberOf.get(e.getKey()) % 2 == 0;
                JsonNode task = e.getValue();
                assertThat(task.path("status").asString()).as("%s: %s", name, task).isEqualTo("completed");
                List<Long> ran = runsOf(runs, name);
                long by = Long.parseLong(text(task).substring((name + " by ").length()));
                long onA = ran.stream().filter(p -> p == pidA).count();
                long onB = ran.stream().filter(p -> p == pidB).count();
                assertThat(ran).as("%s runs %s", name, ran).hasSize((int) (onA + onB));
                if (by == pidB) {
                    assertThat(onB).as("%s runs %s", name, ran).isEqualTo(1);
                    // A task of the killed node may have been killed before its run was recorded.
                    assertThat(onA).as("%s runs %s", name, ran).isLessThanOrEqualTo(createdOnA ? 1 : 0);
                    rerun += createdOnA ? 1 : 0;
                } else {
                    assertThat(by).as(name).isEqualTo(pidA);
                    assertThat(ran).as("%s, finished by the killed node, never runs again", name).containsExactly(pidA);
                }
            }
            assertThat(rerun).as("tasks of the killed node run again on the other").isPositive();
            assertThat(client.redis().exists(DEAD)).as("nothing given up").isZero();
        }
    }

    @ParameterizedTest(name = "on {0}")
    @ValueSource(strings = {"server", "cluster"})
    void aTaskThatBringsItsNodeDownEndsFailedInTheDeadLetterStream(String kind) throws Exception {
        Path runs = runs();
        try (Backend redis = Backend.of(kind);
                TernProcess a = node(redis.uri(), "--redis-task-lease", "1s", "--redis-task-deliveries", "1");
                TernProcess b = node(redis.uri(), "--redis-task-lease", "1s", "--redis-task-deliveries", "1");
                Peek client = redis.peek().get()) {
            ObjectNode arguments = Json.object();
            arguments.put("id", "poison");
            arguments.put("dir", runs.toString());
            String taskId = taskId(http.send(create(a.url(), "crash", arguments), HttpResponse.BodyHandlers.ofString()));
            assertThat(a.process().waitFor(20, TimeUnit.SECONDS)).as("the poisoned task brought its node down").isTrue();
            assertThat(a.process().exitValue()).isEqualTo(3);

            JsonNode task = awaitFinal(b.url(), List.of(taskId), Duration.ofSeconds(20)).get(taskId);
            assertThat(task.path("status").asString()).as("%s", task).isEqualTo("failed");
            assertThat(task.path("error").path("message").asString())
                    .isEqualTo("Task " + taskId + " was started 1 times without finishing");
            assertThat(runsOf(runs, "poison")).as("given up rather than run on the other node")
                    .containsExactly(a.process().pid());
            List<StreamMessage<String, String>> dead = client.redis().xrange(DEAD, Range.create("-", "+"));
            assertThat(dead).hasSize(1);
            assertThat(dead.getFirst().getBody().get("task")).isEqualTo(taskId);
            assertThat(Json.mapper().readTree(dead.getFirst().getBody().get("call")).path("tool").asString())
                    .isEqualTo("crash");
            assertThat(client.queued(QUEUE)).isZero();
            assertThat(b.process().isAlive()).isTrue();
        }
    }

    @Test
    void creatingATaskWhileRedisIsDownIsAnswered503WithRetryAfterAndWorksAgainOnceRedisIsBack() throws Exception {
        Path runs = runs();
        try (RedisServer redis = RedisServer.start(); TernProcess node = node(redis)) {
            String warm = taskId(http.send(create(node.url(), "work", work("warm", 0, runs)), HttpResponse.BodyHandlers.ofString()));
            awaitFinal(node.url(), List.of(warm), Duration.ofSeconds(20));
            redis.stop();
            try {
                for (int i = 0; i < 3; i++) {
                    long started = System.nanoTime();
                    HttpResponse<String> refused = http.send(create(node.url(), "work", work("down" + i, 0, runs)),
                            HttpResponse.BodyHandlers.ofString());
                    assertThat(refused.statusCode()).as(refused.body()).isEqualTo(503);
                    assertThat(refused.headers().firstValue("Retry-After")).isPresent();
                    assertThat(Json.mapper().readTree(refused.body()).path("error").path("message").asString())
                            .startsWith("Service unavailable");
                    // Within the bound of one Redis command (2 s), with room for a loaded machine.
                    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
                }
                assertThat(runsOf(runs, "down0")).as("no handler ran for a task that was refused").isEmpty();
            } finally {
                redis.startAgain();
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            HttpResponse<String> created;
            while ((created = http.send(create(node.url(), "work", work("back", 0, runs)),
                    HttpResponse.BodyHandlers.ofString())).statusCode() != 200) {
                assertThat(created.statusCode()).isEqualTo(503);
                assertThat(System.nanoTime()).as("tasks are accepted again").isLessThan(deadline);
                Thread.sleep(200);
            }
            String taskId = taskId(created);
            JsonNode task = awaitFinal(node.url(), List.of(taskId), Duration.ofSeconds(20)).get(taskId);
            assertThat(task.path("status").asString()).isEqualTo("completed");
            assertThat(text(task)).isEqualTo("back by " + node.process().pid());
        }
    }

    @Test
    void aNodeStoppedBySigtermHandsItsTasksToTheOtherNodeLongBeforeTheirLeaseEnds() throws Exception {
        int tasks = 20;
        Path runs = runs();
        try (RedisServer redis = RedisServer.start();
                TernProcess a = node(redis, "--redis-task-lease", "30s");
                TernProcess b = node(redis, "--redis-task-lease", "30s")) {
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < tasks; i++) {
                ids.add(taskId(http.send(create(a.url(), "work", work("s" + i, 2_000, runs)),
                        HttpResponse.BodyHandlers.ofString())));
            }
            long pidA = a.process().pid();
            long pidB = b.process().pid();
            long stopped = System.nanoTime();
            a.close();
            assertThat(a.process().exitValue()).isEqualTo(143);

            Map<String, JsonNode> done = awaitFinal(b.url(), ids, Duration.ofSeconds(25));
            Duration took = Duration.ofNanos(System.nanoTime() - stopped);
            assertThat(took).as("well within the 30 s lease").isLessThan(Duration.ofSeconds(15));
            int handedOver = 0;
            for (int i = 0; i < tasks; i++) {
                JsonNode task = done.get(ids.get(i));
                assertThat(task.path("status").asString()).as("s%d: %s", i, task).isEqualTo("completed");
                List<Long> ran = runsOf(runs, "s" + i);
                assertThat(ran.getFirst()).as("s%d started where it was created", i).isEqualTo(pidA);
                if (text(task).equals("s" + i + " by " + pidB)) {
                    assertThat(ran).as("s%d", i).containsExactly(pidA, pidB);
                    handedOver++;
                } else {
                    assertThat(ran).as("s%d finished before the node stopped", i).containsExactly(pidA);
                }
            }
            assertThat(handedOver).as("tasks still running at SIGTERM went to the other node").isPositive();
        }
    }
}
