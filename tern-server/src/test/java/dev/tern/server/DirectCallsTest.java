package dev.tern.server;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.tern.protocol.Json;
import dev.tern.protocol.model.CallToolResult;
import dev.tern.protocol.model.ReadResourceResult;
import dev.tern.protocol.model.ResourceContents;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import tools.jackson.databind.node.ObjectNode;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link McpServer#callTool} and {@link McpServer#readResource}: the tools/call and resources/read path without a session. */
class DirectCallsTest {
    record Id(String id) {
    }

    record Greeting(String text) {
    }

    private final CountDownLatch blockerStarted = new CountDownLatch(1);
    private final CountDownLatch blockerSawCancel = new CountDownLatch(1);
    private final McpServer server = McpServer.builder()
            .handlerTimeout(Duration.ofSeconds(30))
            .tool(ToolSpec.builder("greet").handler(Id.class, (ctx, id) -> {
                if (id.id().equals("nobody")) {
                    throw new ToolException("No one to greet");
                }
                return new Greeting("hello " + id.id() + " over " + ctx.protocolVersion().id());
            }).output(Greeting.class).build())
            .tool(ToolSpec.builder("ask").handler((ctx, args) -> {
                ctx.sample(Json.object());
                return CallToolResult.text("never");
            }).build())
            .tool(ToolSpec.builder("task_only").taskSupport(TaskSupport.REQUIRED).handler((ctx, args) -> CallToolResult.text("x")).build())
            .tool(ToolSpec.builder("block").handler((ctx, args) -> {
                blockerStarted.countDown();
                try {
                    Thread.sleep(20_000);
                } catch (InterruptedException e) {
                    blockerSawCancel.countDown();
                    throw e;
                }
                return CallToolResult.text("slept");
            }).build())
            .tool(ToolSpec.builder("quick").nonBlocking(true).handler((ctx, args) -> {
                quickThread = Thread.currentThread();
                return CallToolResult.text("quick");
            }).build())
            .resource(ResourceSpec.builder("test://a", "a").text("alpha").build())
            .resource(ResourceSpec.builder("test://quick", "quick").nonBlocking(true).handler((ctx, uri, vars) -> {
                quickThread = Thread.currentThread();
                return ReadResourceResult.of(ResourceContents.text(uri, "text/plain", "quick"));
            }).build())
            .build();
    private volatile Thread quickThread;

    @AfterEach
    void close() {
        server.close();
    }

    private static ObjectNode args(String json) {
        return Json.mapper().readValue(json, ObjectNode.class);
    }

    private static CallOutcome await(CompletableFuture<CallOutcome> call) throws Exception {
        return call.get(20, TimeUnit.SECONDS);
    }

    @Test
    void aValidCallRunsTheHandlerAndAnswersTheToolsResult() throws Exception {
        CallOutcome outcome = await(server.callTool("greet", args("{\"id\":\"ada\"}")));
        assertThat(outcome).isInstanceOf(CallOutcome.Done.class);
        CallOutcome.Done done = (CallOutcome.Done) outcome;
        assertThat(done.isError()).isFalse();
        assertThat(done.result().path("structuredContent").path("text").asString()).isEqualTo("hello ada over 2026-07-28");
        assertThat(done.result().has("resultType")).as("no protocol decorations").isFalse();
    }

    @Test
    void anUnparsedCallLeavesTheToolsValueAsTheJsonItWasSerializedTo() throws Exception {
        CallOutcome.Done parsed = (CallOutcome.Done) await(server.callTool("greet", args("{\"id\":\"ada\"}")));
        CallOutcome.Done unparsed = (CallOutcome.Done) await(server.callToolUnparsed("greet", args("{\"id\":\"ada\"}")));

        assertThat(Json.rawText(parsed.result().get("structuredContent"))).as("a tree").isNull();
        String json = Json.rawText(unparsed.result().get("structuredContent"));
        assertThat(json).as("the serialized value").isEqualTo(unparsed.result().path("content").path(0).path("text").asString());
        assertThat(Json.materialize(unparsed.result().get("structuredContent")))
                .isEqualTo(parsed.result().get("structuredContent"));
        assertThat(Json.mapper().writeValueAsString(unparsed.result()))
                .as("written the same").isEqualTo(Json.mapper().writeValueAsString(parsed.result()));
        assertThat(server.callToolUnparsed("nobody_here", args("{}")).get(5, TimeUnit.SECONDS))
                .isInstanceOf(CallOutcome.NotFound.class);
    }

    @Test
    void aNonBlockingToolOrResourceRunsOnTheCallingThreadAndIsDoneWhenTheCallReturns() throws Exception {
        CompletableFuture<CallOutcome> call = server.callTool("quick", args("{}"));
        assertThat(call).isDone();
        assertThat(quickThread).isSameAs(Thread.currentThread());
        assertThat(((CallOutcome.Done) call.get()).result().at("/content/0/text").asString()).isEqualTo("quick");

        quickThread = null;
        CompletableFuture<CallOutcome> read = server.readResource("test://quick");
        assertThat(read).isDone();
        assertThat(quickThread).isSameAs(Thread.currentThread());
        assertThat(((CallOutcome.Done) read.get()).result().at("/contents/0/text").asString()).isEqualTo("quick");
    }

    @Test
    void unknownToolsInvalidArgumentsAndToolErrorsAreTold() throws Exception {
        assertThat(await(server.callTool("nope", Json.object()))).isInstanceOf(CallOutcome.NotFound.class);
        CallOutcome invalid = await(server.callTool("greet", args("{\"id\":7}")));
        assertThat(invalid).isInstanceOf(CallOutcome.InvalidArguments.class);
        assertThat(((CallOutcome.InvalidArguments) invalid).violations()).isNotEmpty();
        CallOutcome error = await(server.callTool("greet", args("{\"id\":\"nobody\"}")));
        assertThat(error).isInstanceOf(CallOutcome.Done.class);
        assertThat(((CallOutcome.Done) error).isError()).isTrue();
        assertThat(((CallOutcome.Done) error).result().path("content").get(0).path("text").asString())
                .isEqualTo("No one to greet");
    }

    @Test
    void asksOfTheClientAndTaskOnlyToolsNeedAClient() throws Exception {
        CallOutcome asks = await(server.callTool("ask", Json.object()));
        assertThat(asks).isInstanceOf(CallOutcome.NeedsClient.class);
        assertThat(((CallOutcome.NeedsClient) asks).message()).contains("sampling");
        assertThat(await(server.callTool("task_only", Json.object()))).isInstanceOf(CallOutcome.NeedsClient.class);
    }

    @Test
    void cancellingTheFutureCancelsTheCall() throws Exception {
        CompletableFuture<CallOutcome> call = server.callTool("block", Json.object());
        assertThat(blockerStarted.await(20, TimeUnit.SECONDS)).isTrue();
        call.cancel(false);
        assertThat(blockerSawCancel.await(20, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void closingTheServerCancelsCallsInFlight() throws Exception {
        CompletableFuture<CallOutcome> call = server.callTool("block", Json.object());
        assertThat(blockerStarted.await(20, TimeUnit.SECONDS)).isTrue();
        server.close();
        assertThat(blockerSawCancel.await(20, TimeUnit.SECONDS)).isTrue();
        assertThat(await(call)).isInstanceOf(CallOutcome.Failed.class);
        assertThat(await(server.callTool("greet", args("{\"id\":\"ada\"}")))).isInstanceOf(CallOutcome.Failed.class);
    }

    @Test
    void aHandlerPastItsDeadlineIsCancelled() throws Exception {
        CountDownLatch cancelled = new CountDownLatch(1);
        try (McpServer quick = McpServer.builder().handlerTimeout(Duration.ofMillis(200))
                .tool(ToolSpec.builder("block").handler((ctx, args) -> {
                    try {
                        Thread.sleep(20_000);
                    } catch (InterruptedException e) {
                        cancelled.countDown();
                        throw e;
                    }
                    return CallToolResult.text("slept");
                }).build())
                .build()) {
            CallOutcome outcome = await(quick.callTool("block", Json.object()));
            assertThat(cancelled.await(20, TimeUnit.SECONDS)).isTrue();
            assertThat(outcome).isInstanceOf(CallOutcome.Done.class);
            assertThat(((CallOutcome.Done) outcome).isError()).isTrue();
            assertThat(((CallOutcome.Done) outcome).result().toString()).contains("did not finish");
        }
    }

    @Test
    void resourcesAreReadOrNotFound() throws Exception {
        CallOutcome read = await(server.readResource("test://a"));
        assertThat(read).isInstanceOf(CallOutcome.Done.class);
        ReadResourceResult result = Json.mapper().treeToValue(((CallOutcome.Done) read).result(), ReadResourceResult.class);
        assertThat(result.contents()).containsExactly(ResourceContents.text("test://a", "text/plain", "alpha"));
        assertThat(await(server.readResource("test://b"))).isInstanceOf(CallOutcome.NotFound.class);
    }

    @Test
    void everyChangeOfTheFeaturesMovesTheRevision() {
        long before = server.featuresRevision();
        server.removeTool("ask");
        assertThat(server.featuresRevision()).isGreaterThan(before);
        assertThat(server.tools()).extracting(t -> t.name()).doesNotContain("ask");
    }
}
