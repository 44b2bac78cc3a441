package dev.tern.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.tern.protocol.Json;
import dev.tern.protocol.RequestId;
import dev.tern.protocol.model.CallToolResult;
import dev.tern.protocol.model.ElicitResult;
import dev.tern.server.InMemoryTaskStore;
import dev.tern.server.McpServer;
import dev.tern.server.TaskRecord;
import dev.tern.server.TaskStatus;
import dev.tern.server.TaskStore;
import dev.tern.server.TaskSupport;
import dev.tern.server.ToolSpec;
import dev.tern.testing.TestClient;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** Tool calls as tasks: 2025-11-25 experimental tasks and the 2026-07-28 tasks extension. */
class TasksTest {
    private final CountDownLatch release = new CountDownLatch(1);
    private final McpServer server = McpServer.builder()
            .handlerTimeout(Duration.ofSeconds(20))
            .tool(ToolSpec.builder("slow_sum").description("Adds two numbers, slowly").taskSupport(TaskSupport.OPTIONAL)
                    .inputSchema(Json.mapper().readValue(
                            "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},\"b\":{\"type\":\"integer\"}}}",
                            ObjectNode.class))
                    .handler((ctx, args) -> {
                        release.await(10, TimeUnit.SECONDS);
                        return CallToolResult.text(Integer.toString(args.path("a").asInt() + args.path("b").asInt()));
                    }).build())
            .tool(ToolSpec.builder("report").description("Runs only as a task").taskSupport(TaskSupport.REQUIRED)
                    .handler((ctx, args) -> CallToolResult.text("done")).build())
            .tool(askName())
            .tool(ToolSpec.builder("plain").description("Never a task")
                    .handler((ctx, args) -> CallToolResult.text("plain")).build())
            .build();

    @AfterEach
    void close() {
        release.countDown();
        server.close();
    }

    @Test
    void legacyTaskRunsInTheBackgroundAndItsResultIsFetched() {
        try (TestClient client = TestClient.legacy(server, "2025-11-25")) {
            JsonNode init = client.initialize();
            assertThat(init.path("capabilities").path("tasks").path("requests").path("tools").has("call")).isTrue();

            ObjectNode params = Json.object().put("name", "slow_sum");
            params.putObject("arguments").put("a", 2).put("b", 3);
            params.putObject("task").put("ttl", 60_000);
            JsonNode created = client.request("tools/call", params).result();
            String taskId = created.path("task").path("taskId").asString();
            assertThat(created.path("task").path("status").asString()).isEqualTo("working");
            assertThat(taskId).hasSizeGreaterThanOrEqualTo(22);

            JsonNode got = client.request("tasks/get", Json.object().put("taskId", taskId)).result();
            assertThat(got.path("status").asString()).isEqualTo("working");
            assertThat(client.request("tasks/list", null).result().path("tasks")).hasSize(1);

            RequestId resultId = client.send("tasks/result", Json.object().put("taskId", taskId));
            release.countDown();
            JsonNode result = client.await(resultId).result();
            assertThat(result.path("content").get(0).path("text").asString()).isEqualTo("5");
            assertThat(result.path("_meta").path("io.modelcontextprotocol/related-task").path("taskId").asString())
                    .isEqualTo(taskId);
            assertThat(client.request("tasks/get", Json.object().put("taskId", taskId)).result().path("status").asString())
                    .isEqualTo("completed");
            assertThat(client.request("tasks/cancel", Json.object().put("taskId", taskId)).errorCode()).isEqualTo(-32602);
        }
    }

    @Test
    void legacyTaskRulesFollowTheToolsTaskSupport() {
        try (TestClient client = TestClient.legacy(server, "2025-11-25")) {
            client.initialize();
            assertThat(client.callTool("report", null).errorCode()).isEqualTo(-32601);
            ObjectNode params = Json.object().put("name", "plain");
            params.putObject("task");
            assertThat(client.request("tools/call", params).errorCode()).isEqualTo(-32601);
            assertThat(client.request("tasks/get", Json.object().put("taskId", "nope")).errorCode()).isEqualTo(-32602);
        }
    }

    @Test
    void legacyTaskIsCancelledAndOtherSessionsCannotSeeIt() {
        try (TestClient client = TestClient.legacy(server, "2025-11-25");
                TestClient other = TestClient.legacy(server, "2025-11-25")) {
            client.initialize();
            other.initialize();
            ObjectNode params = Json.object().put("name", "slow_sum");
            params.putObject("arguments").put("a", 1).put("b", 1);
            params.putObject("task");
            String taskId = client.request("tools/call", params).result().path("task").path("taskId").asString();
            assertThat(other.request("tasks/get", Json.object().put("taskId", taskId)).errorCode()).isEqualTo(-32602);
            JsonNode cancelled = client.request("tasks/cancel", Json.object().put("taskId", taskId)).result();
            assertThat(cancelled.path("status").asString()).isEqualTo("cancelled");
            assertThat(client.request("tasks/result", Json.object().put("taskId", taskId)).isError()).isTrue();
        }
    }

    @Test
    void modernTaskNeedsTheExtensionAndTakesInputThroughTasksUpdate() throws InterruptedException {
        try (TestClient plainClient = TestClient.modern(server)) {
            TestClient.Response refused = plainClient.callTool("report", null);
            assertThat(refused.errorCode()).isEqualTo(-32021);
            assertThat(refused.error().path("data").path("requiredCapabilities").path("extensions")
                    .has("io.modelcontextprotocol/tasks")).isTrue();
            assertThat(plainClient.request("tasks/get", Json.object().put("taskId", "x")).errorCode()).isEqualTo(-32021);
        }
        ObjectNode caps = Json.object();
        caps.putObject("extensions").putObject("io.modelcontextprotocol/tasks");
        caps.putObject("elicitation").putObject("form");
        try (TestClient client = TestClient.modern(server).capabilities(caps)) {
            JsonNode discover = client.request("server/discover", null).result();
            assertThat(discover.path("capabilities").path("extensions").has("io.modelcontextprotocol/tasks")).isTrue();

            JsonNode created = client.callTool("ask_name", null).result();
            assertThat(created.path("resultType").asString()).isEqualTo("task");
            String taskId = created.path("taskId").asString();

            JsonNode task = awaitStatus(client, taskId, "input_required");
            String key = task.path("inputRequests").propertyNames().iterator().next();
            assertThat(task.path("inputRequests").path(key).path("method").asString()).isEqualTo("elicitation/create");

            ObjectNode update = Json.object().put("taskId", taskId);
            update.putObject("inputResponses").putObject(key).put("action", "accept").putObject("content").put("name", "Ada");
            assertThat(client.request("tasks/update", update).result().path("resultType").asString()).isEqualTo("complete");

            JsonNode done = awaitStatus(client, taskId, "completed");
            assertThat(done.path("result").path("content").get(0).path("text").asString()).isEqualTo("hello Ada");
        }
    }

    @Test
    void anAnsweredTaskResumesOnlyOnceTheRecordHasTheAnswerAndEndsCompleted() throws InterruptedException {
        // tasks/update must put the answer on the task's record before the waiting task resumes: otherwise the task
        // can finish and write "completed" while tasks/update, still writing its own change ("working", the request
        // answered), overwrites it, and the task stays "working" forever. The store here is slow to write that
        // change, and it records what the record said when the task resumed and any write over a finished task.
        List<String> problems = new CopyOnWriteArrayList<>();
        Map<String, TaskRecord> saved = new ConcurrentHashMap<>();
        TaskStore store = new TaskStore() {
            private final TaskStore delegate = new InMemoryTaskStore();

            @Override
            public void save(TaskRecord task) {
                TaskRecord before = delegate.find(task.taskId()).orElse(null);
                if (before != null && before.status() == TaskStatus.INPUT_REQUIRED && task.status() == TaskStatus.WORKING) {
                    try {
                        Thread.sleep(20);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                before = delegate.find(task.taskId()).orElse(null);
                if (before != null && before.status().terminal()) {
                    problems.add(task.status() + " written over " + before.status());
                }
                delegate.save(task);
                saved.put(task.taskId(), task);
            }

            @Override
            public Optional<TaskRecord> find(String taskId) {
                return delegate.find(taskId);
            }

            @Override
            public List<TaskRecord> list(String owner) {
                return delegate.list(owner);
            }

            @Override
            public void delete(String taskId) {
                delegate.delete(taskId);
            }
        };
        ToolSpec askThenReport = ToolSpec.builder("ask_name").description("Asks the user for a name")
                .taskSupport(TaskSupport.REQUIRED)
                .handler((ctx, args) -> {
                    ObjectNode schema = Json.object().put("type", "object");
                    schema.putObject("properties").putObject("name").put("type", "string");
                    String name = ctx.elicit("Your name?", schema).content().path("name").asString();
                    for (TaskRecord t : saved.values()) {
                        if (t.status() == TaskStatus.INPUT_REQUIRED) {
                            problems.add("task " + t.taskId() + " resumed while its record still asked " + t.inputRequests());
                        }
                    }
                    return CallToolResult.text("hello " + name);
                }).build();
        ObjectNode caps = Json.object();
        caps.putObject("extensions").putObject("io.modelcontextprotocol/tasks");
        caps.putObject("elicitation").putObject("form");
        try (McpServer racy = McpServer.builder().taskStore(store).tool(askThenReport).build();
                TestClient client = TestClient.modern(racy).capabilities(caps)) {
            for (int i = 0; i < 5; i++) {
                String taskId = client.callTool("ask_name", null).result().path("taskId").asString();
                JsonNode task = awaitStatus(client, taskId, "input_required");
                String key = task.path("inputRequests").propertyNames().iterator().next();
                ObjectNode update = Json.object().put("taskId", taskId);
                update.putObject("inputResponses").putObject(key).put("action", "accept").putObject("content")
                        .put("name", "n" + i);
                client.request("tasks/update", update).result();
                JsonNode done = awaitStatus(client, taskId, "completed");
                assertThat(done.path("result").path("content").get(0).path("text").asString()).isEqualTo("hello n" + i);
            }
        }
        assertThat(problems).isEmpty();
    }

    private static ToolSpec askName() {
        return ToolSpec.builder("ask_name").description("Asks the user for a name").taskSupport(TaskSupport.REQUIRED)
                .handler((ctx, args) -> {
                    ObjectNode schema = Json.object().put("type", "object");
                    schema.putObject("properties").putObject("name").put("type", "string");
                    ElicitResult answer = ctx.elicit("Your name?", schema);
                    return CallToolResult.text("hello " + answer.content().path("name").asString());
                }).build();
    }

    private static JsonNode awaitStatus(TestClient client, String taskId, String status) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            JsonNode task = client.request("tasks/get", Json.object().put("taskId", taskId)).result();
            if (task.path("status").asString().equals(status) || System.nanoTime() > deadline) {
                assertThat(task.path("status").asString()).isEqualTo(status);
                return task;
            }
            Thread.sleep(20);
        }
    }
}
