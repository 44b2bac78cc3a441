package dev.tern.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.tern.protocol.Json;
import dev.tern.server.TaskQueue;
import dev.tern.server.TaskRecord;
import dev.tern.server.TaskStatus;
import dev.tern.testing.RedisServer;

import io.lettuce.core.StreamMessage;
import tools.jackson.databind.node.ObjectNode;

/** Two nodes sharing the task queue: the survivor finishes what a crashed node left, and a failing task is given up. */
class RedisTaskQueueTest {
    /** Short, so that a crashed node's tasks run again soon; long enough that a busy machine does not stall renewals. */
    private static final Duration IDLE = Duration.ofSeconds(1);
    private static final int TASKS = 300;

    private static RedisServer server;
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeAll
    static void start() {
        server = RedisServer.start();
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @BeforeEach
    void empty() {
        try (Redis redis = Redis.connect(server.uri())) {
            redis.callWithoutKey(r -> r.flushall());
        }
    }

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : toClose.reversed()) {
            c.close();
        }
    }

    private Redis connect() {
        Redis redis = Redis.connect(server.uri());
        toClose.add(redis);
        return redis;
    }

    private RedisTaskQueue queue(Redis redis, TaskQueue.Runner runner, Duration idle, int maxDeliveries) {
        RedisTaskQueue queue = new RedisTaskQueue(redis, idle, maxDeliveries);
        queue.start(runner);
        toClose.add(queue);
        return queue;
    }

    /** Saves a working task and queues it, as a node accepting a task does. */
    private static void accept(RedisTaskStore store, RedisTaskQueue queue, String taskId) {
        Instant now = Instant.now();
        store.save(new TaskRecord(taskId, "alice", TaskStatus.WORKING, null, now, now, 120_000L, 1000, null, null, null));
        ObjectNode arguments = Json.object();
        arguments.put("id", taskId);
        queue.submit(taskId, new TaskQueue.Call("slow", arguments, Json.object(), "2026-07-28", "alice", null, null));
    }

    private static void storeResult(RedisTaskStore store, String taskId, String text) {
        TaskRecord record = store.find(taskId).orElseThrow();
        ObjectNode result = Json.object();
        result.put("text", text);
        store.save(record.completed(TaskStatus.COMPLETED, result, null, Instant.now()));
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as(what).isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    @Test
    void theSurvivingNodeFinishesEveryTaskTheCrashedNodeLeftExactlyOnceAndNoneItFinished() throws Exception {
        Redis redisA = connect();
        Redis redisB = connect();
        RedisTaskStore storeA = new RedisTaskStore(redisA);
        RedisTaskStore storeB = new RedisTaskStore(redisB);
        CountDownLatch never = new CountDownLatch(1);
        AtomicInteger startedOnA = new AtomicInteger();
        // A finishes a third of its tasks, stores the result of a third and dies before acknowledging them, and
        // dies in the middle of the last third.
        RedisTaskQueue a = queue(redisA, (taskId, call) -> {
            startedOnA.incrementAndGet();
            int n = Integer.parseInt(call.arguments().path("id").asString().substring(1));
            if (n % 3 != 2) {
                storeResult(storeA, taskId, "by a");
            }
            if (n % 3 != 0) {
                never.await();
            }
        }, IDLE, 5);
        Map<String, AtomicInteger> runsOnB = new ConcurrentHashMap<>();
        RedisTaskQueue b = queue(redisB, (taskId, call) -> {
            runsOnB.computeIfAbsent(taskId, k -> new AtomicInteger()).incrementAndGet();
            storeResult(storeB, taskId, "by b");
        }, IDLE, 5);

        for (int i = 0; i < TASKS; i++) {
            accept(storeA, a, "t" + i);
        }
        await("node a started every task", () -> startedOnA.get() == TASKS);
        Thread.sleep(IDLE.toMillis() * 3);
        assertThat(runsOnB).as("no task a keeps renewing is taken from it").isEmpty();
        assertThat(a.running()).isEqualTo(TASKS * 2 / 3);

        a.close();
        redisA.close();

        await("every task is final", () -> {
            for (int i = 0; i < TASKS; i++) {
                if (!storeB.find("t" + i).orElseThrow().status().terminal()) {
                    return false;
                }
            }
            return true;
        });
        await("the queue is empty", () -> redisB.<Long>call(Keys.TASK_QUEUE, r -> r.xlen(Keys.TASK_QUEUE)) == 0);
        for (int i = 0; i < TASKS; i++) {
            TaskRecord task = storeB.find("t" + i).orElseThrow();
            assertThat(task.status()).isEqualTo(TaskStatus.COMPLETED);
            assertThat(task.result().path("text").asString()).as("t%d", i).isEqualTo(i % 3 == 2 ? "by b" : "by a");
        }
        assertThat(runsOnB).hasSize(TASKS / 3);
        assertThat(runsOnB.values()).allSatisfy(runs -> assertThat(runs).hasValue(1));
        assertThat(runsOnB.keySet()).allSatisfy(id -> assertThat(Integer.parseInt(id.substring(1)) % 3).isEqualTo(2));
        assertThat(b.running()).isZero();
        assertThat(redisB.<Long>call(Keys.DEAD_TASKS, r -> r.xlen(Keys.DEAD_TASKS))).isZero();
    }

    @Test
    void aTaskThatNeverFinishesEndsFailedInTheDeadLetterStreamAfterItsLastDelivery() throws Exception {
        Redis redis = connect();
        RedisTaskStore store = new RedisTaskStore(redis);
        AtomicInteger poisonRuns = new AtomicInteger();
        AtomicInteger goodRuns = new AtomicInteger();
        RedisTaskQueue queue = queue(redis, (taskId, call) -> {
            if (taskId.equals("poison")) {
                poisonRuns.incrementAndGet();
                throw new StackOverflowError("the handler crashed");
            }
            goodRuns.incrementAndGet();
            storeResult(store, taskId, "fine");
        }, Duration.ofMillis(300), 3);

        accept(store, queue, "poison");
        accept(store, queue, "good");

        await("the poisoned task is given up", () -> store.find("poison").orElseThrow().status().terminal());
        // The failed record is stored before the entry moves to the dead-letter stream.
        await("the poisoned task is in the dead-letter stream",
                () -> redis.<Long>call(Keys.DEAD_TASKS, r -> r.xlen(Keys.DEAD_TASKS)) > 0);
        TaskRecord poison = store.find("poison").orElseThrow();
        assertThat(poison.status()).isEqualTo(TaskStatus.FAILED);
        assertThat(poison.error().message()).isEqualTo("Task poison was started 3 times without finishing");
        assertThat(poisonRuns).hasValue(3);
        assertThat(goodRuns).hasValue(1);
        assertThat(store.find("good").orElseThrow().status()).isEqualTo(TaskStatus.COMPLETED);

        List<StreamMessage<String, byte[]>> dead = redis.call(Keys.DEAD_TASKS, r -> r.xrange(Keys.DEAD_TASKS, io.lettuce.core.Range.create("-", "+")));
        assertThat(dead).hasSize(1);
        assertThat(new String(dead.getFirst().getBody().get("task"), StandardCharsets.UTF_8)).isEqualTo("poison");
        assertThat(RedisTaskQueue.decode(dead.getFirst().getBody().get("call")).tool()).isEqualTo("slow");
        assertThat(redis.<Long>call(Keys.TASK_QUEUE, r -> r.xlen(Keys.TASK_QUEUE))).isZero();
        Thread.sleep(1_000);
        assertThat(poisonRuns).as("a buried task does not run again").hasValue(3);
    }
}
