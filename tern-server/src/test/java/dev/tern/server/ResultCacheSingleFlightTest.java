package dev.tern.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.Test;

import dev.tern.protocol.Json;
import dev.tern.protocol.JsonRpcMessage;
import dev.tern.protocol.JsonRpcRequest;
import dev.tern.protocol.JsonRpcResponse;
import dev.tern.protocol.JsonRpcResult;
import dev.tern.protocol.McpMeta;
import dev.tern.protocol.RequestId;
import dev.tern.protocol.model.CallToolResult;
import dev.tern.protocol.model.ReadResourceResult;
import dev.tern.protocol.model.ResourceContents;

import tools.jackson.databind.node.ObjectNode;

/** Concurrent misses of one cached call run its handler once; failures are never shared; direct calls share the cache. */
class ResultCacheSingleFlightTest {
    private static final ObjectNode ANY_OBJECT = (ObjectNode) Json.mapper().readTree("{\"type\":\"object\"}");

    private final AtomicInteger runs = new AtomicInteger();
    /** Holds the handler's first run until released. */
    private final CountDownLatch gate = new CountDownLatch(1);

    private ToolSpec gated(String name, CacheScope scope) {
        return ToolSpec.builder(name).inputSchema(ANY_OBJECT).cache(Duration.ofMinutes(1), scope).handler((ctx, args) -> {
            int n = runs.incrementAndGet();
            if (n == 1) {
                gate.await();
            }
            if (args.path("fail").asBoolean(false)) {
                return CallToolResult.error("failed " + n);
            }
            return CallToolResult.text("run " + n + " for " + args.path("id").asString(""));
        }).build();
    }

    /** Starts one 2026-07-28 tools/call as {@code principal}; the future holds its result. */
    private static CompletableFuture<ObjectNode> call(McpServer server, String principal, String tool, String arguments) {
        ObjectNode params = Json.object();
        params.put("name", tool);
        params.set("arguments", Json.mapper().readTree(arguments));
        ObjectNode meta = params.putObject(McpMeta.KEY);
        meta.put(McpMeta.PROTOCOL_VERSION, "2026-07-28");
        meta.putObject(McpMeta.CLIENT_CAPABILITIES);
        CompletableFuture<ObjectNode> result = new CompletableFuture<>();
        server.serve(new JsonRpcRequest(RequestId.of(1), "tools/call", params), new Outbound() {
            @Override
            public void send(JsonRpcMessage message, RequestId relatedTo) {
                if (message instanceof JsonRpcResponse r) {
                    assertThat(r).isInstanceOf(JsonRpcResult.class);
                    result.complete((ObjectNode) ((JsonRpcResult) r).result());
                }
            }

            @Override
            public String principal() {
                return principal;
            }
        });
        return result;
    }

    private static String text(CompletableFuture<ObjectNode> result) throws Exception {
        return text(result.get(20, TimeUnit.SECONDS));
    }

    private static String text(ObjectNode result) {
        return result.path("content").path(0).path("text").asString();
    }

    private static String text(CallOutcome outcome) {
        assertThat(outcome).isInstanceOf(CallOutcome.Done.class);
        return text(((CallOutcome.Done) outcome).result());
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("waited for: %s", what).isLessThan(deadline);
            Thread.sleep(5);
        }
    }

    @Test
    void concurrentMissesOfOneCallRunTheHandlerOnceAndAllGetItsResult() throws Exception {
        try (McpServer server = McpServer.builder().tool(gated("lookup", CacheScope.PUBLIC)).build()) {
            List<CompletableFuture<ObjectNode>> calls = new ArrayList<>();
            calls.add(call(server, "alice", "lookup", "{\"id\":\"7\"}"));
            await("the first run", () -> runs.get() == 1);
            for (int i = 0; i < 7; i++) {
                calls.add(call(server, i % 2 == 0 ? "bob" : null, "lookup", "{\"id\":\"7\"}"));
            }
            await("seven callers waiting for the first run", () -> server.results().waiting() == 7);
            gate.countDown();

            for (CompletableFuture<ObjectNode> c : calls) {
                ObjectNode result = c.get(20, TimeUnit.SECONDS);
                assertThat(text(result)).isEqualTo("run 1 for 7");
                assertThat(result.path("cacheScope").asString()).isEqualTo("public");
                assertThat(result.path("ttlMs").asLong()).isBetween(1L, 60_000L);
            }
            assertThat(runs).as("handler runs").hasValue(1);
            assertThat(server.results().waiting()).isZero();
        }
    }

    @Test
    void privateMissesWaitOnlyForARunOfTheirOwnPrincipal() throws Exception {
        try (McpServer server = McpServer.builder().tool(gated("mine", CacheScope.PRIVATE)).build()) {
            CompletableFuture<ObjectNode> alice = call(server, "alice", "mine", "{\"id\":\"1\"}");
            await("alice's run", () -> runs.get() == 1);
            CompletableFuture<ObjectNode> aliceAgain = call(server, "alice", "mine", "{\"id\":\"1\"}");
            await("alice's second call waiting", () -> server.results().waiting() == 1);
            assertThat(text(call(server, "bob", "mine", "{\"id\":\"1\"}"))).as("bob runs his own").isEqualTo("run 2 for 1");
            gate.countDown();
            assertThat(text(alice)).isEqualTo("run 1 for 1");
            assertThat(text(aliceAgain)).isEqualTo("run 1 for 1");
            assertThat(runs).hasValue(2);
        }
    }

    @Test
    void anErrorIsNeverSharedEachWaiterRunsTheCallItself() throws Exception {
        try (McpServer server = McpServer.builder().tool(gated("lookup", CacheScope.PUBLIC)).build()) {
            CompletableFuture<ObjectNode> first = call(server, null, "lookup", "{\"fail\":true}");
            await("the first run", () -> runs.get() == 1);
            CompletableFuture<ObjectNode> second = call(server, null, "lookup", "{\"fail\":true}");
            CompletableFuture<ObjectNode> third = call(server, null, "lookup", "{\"fail\":true}");
            await("two callers waiting", () -> server.results().waiting() == 2);
            gate.countDown();

            assertThat(text(first)).isEqualTo("failed 1");
            assertThat(List.of(text(second), text(third))).containsExactlyInAnyOrder("failed 2", "failed 3");
            assertThat(second.get().has("ttlMs")).as("an error says nothing of caching").isFalse();
            assertThat(runs).hasValue(3);
        }
    }

    @Test
    void aCancelledLeaderLeavesItsWaitersToRunTheCallThemselves() throws Exception {
        try (McpServer server = McpServer.builder().tool(gated("lookup", CacheScope.PUBLIC)).build()) {
            CompletableFuture<CallOutcome> leader = server.callTool("lookup", (ObjectNode) Json.mapper().readTree("{\"id\":\"3\"}"));
            await("the first run", () -> runs.get() == 1);
            CompletableFuture<ObjectNode> waiter = call(server, null, "lookup", "{\"id\":\"3\"}");
            await("a caller waiting", () -> server.results().waiting() == 1);

            leader.cancel(false);
            assertThat(text(waiter)).isEqualTo("run 2 for 3");
            assertThat(text(call(server, null, "lookup", "{\"id\":\"3\"}"))).as("the waiter's run is kept")
                    .isEqualTo("run 2 for 3");
            assertThat(runs).hasValue(2);
        }
    }

    @Test
    void aCancelledWaiterStopsWaitingAndTheRunGoesOnForTheOthers() throws Exception {
        try (McpServer server = McpServer.builder().tool(gated("lookup", CacheScope.PUBLIC)).build()) {
            CompletableFuture<ObjectNode> leader = call(server, null, "lookup", "{\"id\":\"4\"}");
            await("the first run", () -> runs.get() == 1);
            CompletableFuture<CallOutcome> waiter = server.callTool("lookup", (ObjectNode) Json.mapper().readTree("{\"id\":\"4\"}"));
            await("a caller waiting", () -> server.results().waiting() == 1);

            waiter.cancel(false);
            await("the cancelled caller gone", () -> server.results().waiting() == 0);
            assertThat(leader).isNotDone();
            gate.countDown();
            assertThat(text(leader)).isEqualTo("run 1 for 4");
            assertThat(runs).hasValue(1);
        }
    }

    @Test
    void aCallMadeAfterAnInvalidationDoesNotWaitForARunStartedBeforeIt() throws Exception {
        try (McpServer server = McpServer.builder().tool(gated("lookup", CacheScope.PUBLIC)).build()) {
            CompletableFuture<ObjectNode> before = call(server, null, "lookup", "{\"id\":\"5\"}");
            await("the first run", () -> runs.get() == 1);
            server.invalidateTool("lookup");
            assertThat(text(call(server, null, "lookup", "{\"id\":\"5\"}"))).isEqualTo("run 2 for 5");
            gate.countDown();
            assertThat(text(before)).isEqualTo("run 1 for 5");
            assertThat(text(call(server, null, "lookup", "{\"id\":\"5\"}")))
                    .as("the result of the run across the invalidation is not kept").isEqualTo("run 2 for 5");
        }
    }

    @Test
    void directCallsAreServedFromTheCacheOfMcpCallsWithTheSameScopeRules() throws Exception {
        gate.countDown();
        try (McpServer server = McpServer.builder().tool(gated("lookup", CacheScope.PUBLIC))
                .tool(gated("mine", CacheScope.PRIVATE)).build()) {
            ObjectNode seven = (ObjectNode) Json.mapper().readTree("{\"id\":\"7\"}");
            assertThat(text(server.callTool("lookup", seven.deepCopy()).get(20, TimeUnit.SECONDS))).isEqualTo("run 1 for 7");
            assertThat(text(call(server, "bob", "lookup", "{\"id\":\"7\"}"))).isEqualTo("run 1 for 7");
            assertThat(text(server.callToolUnparsed("lookup", seven.deepCopy()).get(20, TimeUnit.SECONDS)))
                    .isEqualTo("run 1 for 7");

            assertThat(text(server.callToolUnparsed("mine", seven.deepCopy(), "alice", null).get(20, TimeUnit.SECONDS)))
                    .isEqualTo("run 2 for 7");
            assertThat(text(call(server, "alice", "mine", "{\"id\":\"7\"}"))).isEqualTo("run 2 for 7");
            assertThat(text(call(server, "bob", "mine", "{\"id\":\"7\"}"))).isEqualTo("run 3 for 7");
            assertThat(text(server.callTool("mine", seven.deepCopy()).get(20, TimeUnit.SECONDS)))
                    .as("an anonymous direct call is never served a private copy").isEqualTo("run 4 for 7");
            assertThat(text(server.callTool("mine", seven.deepCopy()).get(20, TimeUnit.SECONDS))).isEqualTo("run 5 for 7");
        }
    }

    @Test
    void directReadsOfACacheableResourceAreServedFromTheCache() throws Exception {
        ResourceSpec resource = ResourceSpec.builder("mem://state", "state").cache(Duration.ofMinutes(1), CacheScope.PUBLIC)
                .handler((ctx, uri, vars) -> ReadResourceResult.of(
                        ResourceContents.text(uri, "text/plain", "v" + runs.incrementAndGet())))
                .build();
        try (McpServer server = McpServer.builder().resource(resource).build()) {
            CallOutcome first = server.readResource("mem://state").get(20, TimeUnit.SECONDS);
            CallOutcome second = server.readResource("mem://state", "alice", null).get(20, TimeUnit.SECONDS);
            assertThat(((CallOutcome.Done) second).result().path("contents").path(0).path("text").asString())
                    .isEqualTo("v1");
            assertThat(first).isInstanceOf(CallOutcome.Done.class);
            server.notifyResourceUpdated("mem://state");
            CallOutcome third = server.readResource("mem://state").get(20, TimeUnit.SECONDS);
            assertThat(((CallOutcome.Done) third).result().path("contents").path(0).path("text").asString())
                    .isEqualTo("v2");
        }
    }
}
