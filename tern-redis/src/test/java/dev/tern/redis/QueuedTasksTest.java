package dev.tern.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
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
import dev.tern.server.McpServer;
import dev.tern.server.Outbound;
import dev.tern.server.TaskSupport;
import dev.tern.server.ToolSpec;
import dev.tern.testing.RedisServer;

import tools.jackson.databind.node.ObjectNode;

/**
 * Two servers sharing a {@link RedisTaskQueue}: a task accepted by one runs there; when that server closes, the other
 * runs it again without the client, so that a handler asking the client for input fails at once instead of waiting.
 */
class QueuedTasksTest {
    /** Longer than the test waits: a task taken up at all was handed back by the closing server. */
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final ObjectNode ANY_OBJECT = (ObjectNode) Json.mapper().readTree("{\"type\":\"object\"}");

    private static RedisServer server;
    private final List<AutoCloseable> toClose = new ArrayList<>();
    private final AtomicInteger runs = new AtomicInteger();

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

    /** A server whose tool "confirm" records its run, works a moment, then asks the client to confirm. */
    private McpServer node() {
        Redis redis = Redis.connect(server.uri());
        toClose.add(redis);
        McpServer node = McpServer.builder().taskStore(new RedisTaskStore(redis))
                .taskQueue(new RedisTaskQueue(redis, LEASE, 5))
                .tool(ToolSpec.builder("confirm").inputSchema(ANY_OBJECT).taskSupport(TaskSupport.REQUIRED)
                        .handler((ctx, args) -> {
                            runs.incrementAndGet();
                            Thread.sleep(200);
                            ObjectNode schema = Json.object();
                            schema.put("type", "object");
                            return CallToolResult.text("confirmed: " + ctx.elicit("Go on?", schema).action());
                        }).build())
                .build();
        toClose.add(node);
        return node;
    }

    private static ObjectNode call(McpServer node, String method, ObjectNode params) throws Exception {
        ObjectNode meta = params.putObject(McpMeta.KEY);
        meta.put(McpMeta.PROTOCOL_VERSION, "2026-07-28");
        ObjectNode capabilities = meta.putObject(McpMeta.CLIENT_CAPABILITIES);
        capabilities.putObject("elicitation");
        capabilities.putObject("extensions").putObject(McpMeta.TASKS_EXTENSION);
        CompletableFuture<JsonRpcResponse> answer = new CompletableFuture<>();
        node.serve(new JsonRpcRequest(RequestId.of(1), method, params), new Outbound() {
            @Override
            public void send(JsonRpcMessage message, RequestId relatedTo) {
                if (message instanceof JsonRpcResponse r) {
                    answer.complete(r);
                }
            }
        });
        JsonRpcResponse response = answer.get(20, TimeUnit.SECONDS);
        assertThat(response).isInstanceOf(JsonRpcResult.class);
        return (ObjectNode) ((JsonRpcResult) response).result();
    }

    private static ObjectNode get(McpServer node, String taskId) throws Exception {
        ObjectNode params = Json.object();
        params.put("taskId", taskId);
        return call(node, "tasks/get", params);
    }

    @Test
    void aTaskRunAgainOnAServerWithoutItsClientFailsClearlyWhenItAsksForInput() throws Exception {
        McpServer a = node();
        McpServer b = node();
        ObjectNode params = Json.object();
        params.put("name", "confirm");
        params.putObject("arguments");
        String taskId = call(a, "tools/call", params).path("taskId").asString();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!get(b, taskId).path("status").asString().equals("input_required")) {
            assertThat(System.nanoTime()).as("the task asks its client through the server that accepted it")
                    .isLessThan(deadline);
            Thread.sleep(20);
        }
        assertThat(runs).hasValue(1);

        a.close();
        ObjectNode task;
        while (!(task = get(b, taskId)).path("status").asString().equals("failed")) {
            assertThat(System.nanoTime()).as("the other server fails the task: %s", task).isLessThan(deadline);
            Thread.sleep(20);
        }
        assertThat(task.path("error").path("message").asString()).isEqualTo("Task " + taskId
                + " was run again on a node its client never reached, which cannot ask the client for input");
        assertThat(runs).as("run again once, on the other server").hasValue(2);
    }
}
