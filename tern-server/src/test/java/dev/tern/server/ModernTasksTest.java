package dev.tern.server;

import static dev.tern.server.Fixtures.call;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.tern.protocol.ErrorCodes;
import dev.tern.protocol.Json;
import dev.tern.protocol.McpException;
import dev.tern.protocol.model.CallToolResult;
import dev.tern.protocol.model.ElicitResult;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The 2026-07-28 tasks extension ({@code io.modelcontextprotocol/tasks}) and how it composes with multi-round-trip
 * requests: a tool that asks before its task gathers the answers by {@code input_required} results on the original
 * request, and the task is created only on the round that has them all.
 */
class ModernTasksTest {
    private static final String EXTENSION = "io.modelcontextprotocol/tasks";
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final List<AutoCloseable> toClose = new ArrayList<>();
    /** How often each tool's handler started. */
    private final AtomicInteger starts = new AtomicInteger();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : toClose) {
            c.close();
        }
    }

    private Peer peer(boolean declaresTasks) {
        McpServer server = McpServer.builder()
                .tool(ToolSpec.builder("greet_later").taskSupport(TaskSupport.REQUIRED).inputBeforeTask(true)
                        .handler((ctx, args) -> {
                            starts.incrementAndGet();
                            String name = name(ctx, "user_name");
                            ctx.continueAsTask();
                            return CallToolResult.text("Hello, " + name + "!");
                        }).build())
                .tool(ToolSpec.builder("greet_and_confirm").taskSupport(TaskSupport.REQUIRED).inputBeforeTask(true)
                        .handler((ctx, args) -> {
                            String name = name(ctx, "user_name");
                            ctx.continueAsTask();
                            String confirmed = ctx.ask(Map.of("confirm", InputRequest.elicit("Sure?", schema("ok"))))
                                    .elicitation("confirm").content().path("ok").asString("no");
                            return CallToolResult.text(name + " confirmed: " + confirmed);
                        }).build())
                .tool(ToolSpec.builder("maybe_later").taskSupport(TaskSupport.OPTIONAL).inputBeforeTask(true)
                        .handler((ctx, args) -> {
                            String name = name(ctx, "user_name");
                            if (name.equals("quick")) {
                                return CallToolResult.text("done at once");
                            }
                            if (name.equals("refused")) {
                                throw McpException.invalidParams("no such user: " + name);
                            }
                            ctx.continueAsTask();
                            return CallToolResult.text("done later for " + name);
                        }).build())
                .tool(ToolSpec.builder("ask_in_task").taskSupport(TaskSupport.REQUIRED)
                        .handler((ctx, args) -> {
                            ctx.continueAsTask();
                            return CallToolResult.text("Hi, " + name(ctx, "user_name"));
                        }).build())
                .build();
        toClose.add(server);
        Peer p = new Peer(server);
        ObjectNode caps = Json.object();
        caps.putObject("elicitation");
        if (declaresTasks) {
            caps.putObject("extensions").putObject(EXTENSION);
        }
        p.capabilities(caps);
        toClose.add(0, p);
        return p;
    }

    private static String name(RequestContext ctx, String key) {
        ElicitResult answer = ctx.ask(Map.of(key, InputRequest.elicit("Your name?", schema("name")))).elicitation(key);
        return answer.content().path("name").asString("?");
    }

    private static ObjectNode schema(String property) {
        ObjectNode schema = Json.object().put("type", "object");
        schema.putObject("properties").putObject(property).put("type", "string");
        return schema;
    }

    private static JsonNode result(JsonNode response) {
        assertThat(response.has("result")).as("expected a result: %s", response).isTrue();
        return response.get("result");
    }

    /** The retry of {@code params} answering the only input request of {@code inputRequired}. */
    private static ObjectNode answering(ObjectNode params, JsonNode inputRequired, String property, String value) {
        String key = inputRequired.get("inputRequests").propertyNames().iterator().next();
        ObjectNode retry = params.deepCopy();
        retry.putObject("inputResponses").putObject(key).put("action", "accept").putObject("content").put(property, value);
        retry.put("requestState", inputRequired.get("requestState").stringValue());
        return retry;
    }

    private static JsonNode awaitStatus(Peer p, String taskId, String status) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        JsonNode task = null;
        while (System.nanoTime() < deadline) {
            task = result(p.modernRequest("tasks/get", Json.object().put("taskId", taskId)));
            if (task.get("status").stringValue().equals(status)) {
                return task;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("task " + taskId + " did not become " + status + ": " + task);
    }

    @Test
    void aToolThatAsksBeforeItsTaskAnswersTheFirstRoundWithInputRequiredAndNoTask() {
        Peer p = peer(true);
        JsonNode first = result(p.modernRequest("tools/call", call("greet_later", "{}")));

        assertThat(first.get("resultType").stringValue()).isEqualTo("input_required");
        assertThat(first.has("taskId")).isFalse();
        assertThat(first.get("inputRequests").propertyNames()).containsExactly("user_name");
        assertThat(first.at("/inputRequests/user_name/method").stringValue()).isEqualTo("elicitation/create");
        assertThat(first.get("requestState").isString()).isTrue();
    }

    @Test
    void theRoundWithEveryAnswerCreatesTheTaskWhoseResultCarriesThem() throws InterruptedException {
        Peer p = peer(true);
        ObjectNode params = call("greet_later", "{}");
        JsonNode first = result(p.modernRequest("tools/call", params));

        JsonNode created = result(p.modernRequest("tools/call", answering(params, first, "name", "Alice")));
        assertThat(created.get("resultType").stringValue()).isEqualTo("task");
        assertThat(created.get("taskId").stringValue()).isNotEmpty();
        assertThat(created.get("status").stringValue()).isIn("working", "completed");
        for (String absent : List.of("requestState", "inputRequests", "result", "content")) {
            assertThat(created.has(absent)).as("the created task has no %s", absent).isFalse();
        }

        JsonNode done = awaitStatus(p, created.get("taskId").stringValue(), "completed");
        assertThat(done.at("/result/content/0/text").stringValue()).isEqualTo("Hello, Alice!");
        assertThat(starts).as("the handler runs once per round, not again for the task").hasValue(2);
    }

    @Test
    void anAskAfterTheTaskStartsWaitsInTheTaskForTasksUpdate() throws InterruptedException {
        Peer p = peer(true);
        ObjectNode params = call("greet_and_confirm", "{}");
        JsonNode first = result(p.modernRequest("tools/call", params));
        JsonNode created = result(p.modernRequest("tools/call", answering(params, first, "name", "Bob")));
        String taskId = created.get("taskId").stringValue();

        JsonNode waiting = awaitStatus(p, taskId, "input_required");
        assertThat(waiting.get("inputRequests").propertyNames()).containsExactly("confirm");
        ObjectNode update = Json.object().put("taskId", taskId);
        update.putObject("inputResponses").putObject("confirm").put("action", "accept").putObject("content").put("ok", "yes");
        assertThat(result(p.modernRequest("tasks/update", update)).get("resultType").stringValue()).isEqualTo("complete");

        JsonNode done = awaitStatus(p, taskId, "completed");
        assertThat(done.at("/result/content/0/text").stringValue()).isEqualTo("Bob confirmed: yes");
    }

    @Test
    void aHandlerThatFinishesBeforeContinuingAsATaskAnswersTheRequestItself() {
        Peer p = peer(true);
        ObjectNode params = call("maybe_later", "{}");
        JsonNode first = result(p.modernRequest("tools/call", params));

        JsonNode done = result(p.modernRequest("tools/call", answering(params, first, "name", "quick")));
        assertThat(done.get("resultType").stringValue()).isEqualTo("complete");
        assertThat(done.has("taskId")).isFalse();
        assertThat(done.at("/content/0/text").stringValue()).isEqualTo("done at once");
    }

    @Test
    void aProtocolErrorBeforeTheTaskIsTheRequestsError() {
        Peer p = peer(true);
        ObjectNode params = call("maybe_later", "{}");
        JsonNode first = result(p.modernRequest("tools/call", params));

        JsonNode failed = p.modernRequest("tools/call", answering(params, first, "name", "refused"));
        assertThat(failed.at("/error/code").intValue()).isEqualTo(ErrorCodes.INVALID_PARAMS);
        assertThat(failed.at("/error/message").stringValue()).contains("no such user: refused");
    }

    @Test
    void withoutTheExtensionAnOptionalToolRunsToItsEndAsAnOrdinaryCall() {
        Peer p = peer(false);
        ObjectNode params = call("maybe_later", "{}");
        JsonNode first = result(p.modernRequest("tools/call", params));
        assertThat(first.get("resultType").stringValue()).isEqualTo("input_required");

        JsonNode done = result(p.modernRequest("tools/call", answering(params, first, "name", "Carol")));
        assertThat(done.get("resultType").stringValue()).isEqualTo("complete");
        assertThat(done.has("taskId")).isFalse();
        assertThat(done.at("/content/0/text").stringValue()).isEqualTo("done later for Carol");
    }

    @Test
    void aToolThatDoesNotAskBeforeItsTaskIsATaskFromItsFirstRound() throws InterruptedException {
        Peer p = peer(true);
        JsonNode created = result(p.modernRequest("tools/call", call("ask_in_task", "{}")));
        assertThat(created.get("resultType").stringValue()).isEqualTo("task");
        String taskId = created.get("taskId").stringValue();

        JsonNode waiting = awaitStatus(p, taskId, "input_required");
        assertThat(waiting.get("inputRequests").propertyNames()).containsExactly("user_name");
        ObjectNode update = Json.object().put("taskId", taskId);
        update.putObject("inputResponses").putObject("user_name").put("action", "accept").putObject("content").put("name", "Dan");
        p.modernRequest("tasks/update", update);
        assertThat(awaitStatus(p, taskId, "completed").at("/result/content/0/text").stringValue()).isEqualTo("Hi, Dan");
    }
}
