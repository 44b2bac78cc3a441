package dev.tern.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import dev.tern.protocol.Json;
import dev.tern.protocol.JsonRpcMessage;
import dev.tern.protocol.JsonRpcRequest;
import dev.tern.protocol.JsonRpcResponse;
import dev.tern.protocol.JsonRpcResult;
import dev.tern.protocol.McpMeta;
import dev.tern.protocol.RequestId;
import dev.tern.protocol.model.CallToolResult;
import dev.tern.protocol.model.GetPromptResult;
import dev.tern.protocol.model.PromptMessage;
import dev.tern.protocol.model.TextContent;
import dev.tern.protocol.model.ReadResourceResult;
import dev.tern.protocol.model.ResourceContents;

import tools.jackson.databind.node.ObjectNode;

class ResultCacheTest {
    private final AtomicInteger runs = new AtomicInteger();
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

    /** A tool answering with who called it and how often it ran. */
    private static final ObjectNode ANY_OBJECT = (ObjectNode) Json.mapper().readTree("{\"type\":\"object\"}");

    private ToolSpec counter(String name, CacheScope scope) {
        return ToolSpec.builder(name).inputSchema(ANY_OBJECT).cache(Duration.ofSeconds(30), scope).handler((ctx, args) -> {
            int n = runs.incrementAndGet();
            if (args.path("fail").asBoolean(false)) {
                return CallToolResult.error("failed " + n);
            }
            return CallToolResult.text("run " + n + " for " + args.path("id").asString(""));
        }).build();
    }

    private McpServer.Builder server() {
        return McpServer.builder().cacheTicker(nanos::get);
    }

    private static JsonRpcRequest modern(String method, ObjectNode params) {
        ObjectNode meta = params.putObject(McpMeta.KEY);
        meta.put(McpMeta.PROTOCOL_VERSION, "2026-07-28");
        meta.putObject(McpMeta.CLIENT_CAPABILITIES);
        return new JsonRpcRequest(RequestId.of(1), method, params);
    }

    /** Serves one 2026-07-28 request as {@code principal} and waits for its result. */
    private static ObjectNode call(McpServer server, String principal, String method, ObjectNode params)
            throws Exception {
        CompletableFuture<JsonRpcResponse> answer = new CompletableFuture<>();
        server.serve(modern(method, params), new Outbound() {
            @Override
            public void send(JsonRpcMessage message, RequestId relatedTo) {
                if (message instanceof JsonRpcResponse r) {
                    answer.complete(r);
                }
            }

            @Override
            public String principal() {
                return principal;
            }
        });
        JsonRpcResponse response = answer.get(20, TimeUnit.SECONDS);
        assertThat(response).isInstanceOf(JsonRpcResult.class);
        return (ObjectNode) ((JsonRpcResult) response).result();
    }

    private static ObjectNode tool(String name, String argumentsJson) {
        ObjectNode params = Json.object();
        params.put("name", name);
        params.set("arguments", Json.mapper().readTree(argumentsJson));
        return params;
    }

    private static String text(ObjectNode result) {
        return result.path("content").path(0).path("text").asString();
    }

    @Test
    void aCachedPublicResultIsServedWithoutRunningTheHandler() throws Exception {
        try (McpServer server = server().tool(counter("lookup", CacheScope.PUBLIC)).build()) {
            ObjectNode first = call(server, "alice", "tools/call", tool("lookup", "{\"id\":\"7\",\"x\":{\"b\":1,\"a\":2}}"));
            ObjectNode second = call(server, "bob", "tools/call", tool("lookup", "{\"x\":{\"a\":2,\"b\":1},\"id\":\"7\"}"));
            ObjectNode anonymous = call(server, null, "tools/call", tool("lookup", "{\"id\":\"7\",\"x\":{\"a\":2,\"b\":1}}"));

            assertThat(runs).as("one run: the same arguments in another key order are the same call").hasValue(1);
            assertThat(text(second)).isEqualTo("run 1 for 7");
            assertThat(text(anonymous)).isEqualTo("run 1 for 7");
            assertThat(first.path("ttlMs").asLong()).isEqualTo(30_000);
            assertThat(first.path("cacheScope").asString()).isEqualTo("public");
            SpecSchemas.assertValid("2026-07-28", "CallToolResult", second);
        }
    }

    @Test
    void aHitTellsTheTimeLeftRatherThanTheWholeTimeToLive() throws Exception {
        try (McpServer server = server().tool(counter("lookup", CacheScope.PUBLIC)).build()) {
            call(server, null, "tools/call", tool("lookup", "{\"id\":\"1\"}"));
            nanos.addAndGet(TimeUnit.SECONDS.toNanos(10));
            ObjectNode hit = call(server, null, "tools/call", tool("lookup", "{\"id\":\"1\"}"));
            assertThat(hit.path("ttlMs").asLong()).isEqualTo(20_000);

            nanos.addAndGet(TimeUnit.SECONDS.toNanos(21));
            ObjectNode expired = call(server, null, "tools/call", tool("lookup", "{\"id\":\"1\"}"));
            assertThat(text(expired)).as("past its time to live the handler runs again").isEqualTo("run 2 for 1");
            assertThat(expired.path("ttlMs").asLong()).isEqualTo(30_000);
        }
    }

    @Test
    void aPrivateResultNeverReachesAnotherPrincipal() throws Exception {
        try (McpServer server = server().tool(counter("mine", CacheScope.PRIVATE)).build()) {
            ObjectNode alice = call(server, "alice", "tools/call", tool("mine", "{\"id\":\"1\"}"));
            ObjectNode bob = call(server, "bob", "tools/call", tool("mine", "{\"id\":\"1\"}"));
            ObjectNode aliceAgain = call(server, "alice", "tools/call", tool("mine", "{\"id\":\"1\"}"));
            ObjectNode anonymous1 = call(server, null, "tools/call", tool("mine", "{\"id\":\"1\"}"));
            ObjectNode anonymous2 = call(server, null, "tools/call", tool("mine", "{\"id\":\"1\"}"));

            assertThat(text(alice)).isEqualTo("run 1 for 1");
            assertThat(text(bob)).as("bob's call runs the handler for bob").isEqualTo("run 2 for 1");
            assertThat(text(aliceAgain)).as("alice is served her own copy").isEqualTo("run 1 for 1");
            assertThat(text(anonymous1)).as("anonymous callers share no private copy").isEqualTo("run 3 for 1");
            assertThat(text(anonymous2)).isEqualTo("run 4 for 1");
            assertThat(alice.path("cacheScope").asString()).isEqualTo("private");
        }
    }

    @Test
    void errorResultsAreNeverCached() throws Exception {
        try (McpServer server = server().tool(counter("lookup", CacheScope.PUBLIC)).build()) {
            ObjectNode first = call(server, null, "tools/call", tool("lookup", "{\"fail\":true}"));
            ObjectNode second = call(server, null, "tools/call", tool("lookup", "{\"fail\":true}"));
            assertThat(text(first)).isEqualTo("failed 1");
            assertThat(text(second)).isEqualTo("failed 2");
            assertThat(first.has("ttlMs")).as("an error says nothing of caching").isFalse();
            assertThat(text(call(server, null, "tools/call", tool("lookup", "{\"id\":\"1\"}")))).isEqualTo("run 3 for 1");
        }
    }

    @Test
    void invalidationIsVisibleOnTheNextCall() throws Exception {
        try (McpServer server = server().tool(counter("lookup", CacheScope.PUBLIC)).build()) {
            call(server, null, "tools/call", tool("lookup", "{\"id\":\"1\"}"));
            server.invalidateTool("lookup");
            assertThat(text(call(server, null, "tools/call", tool("lookup", "{\"id\":\"1\"}")))).isEqualTo("run 2 for 1");

            server.invalidateCache();
            assertThat(text(call(server, null, "tools/call", tool("lookup", "{\"id\":\"1\"}")))).isEqualTo("run 3 for 1");

            server.addTool(ToolSpec.builder("other").handler((c, a) -> null).build());
            assertThat(text(call(server, null, "tools/call", tool("lookup", "{\"id\":\"1\"}"))))
                    .as("a change of the tool list drops the tools' results").isEqualTo("run 4 for 1");
            assertThat(text(call(server, null, "tools/call", tool("lookup", "{\"id\":\"1\"}")))).isEqualTo("run 4 for 1");
        }
    }

    @Test
    void aResourceUpdateDropsItsCachedReads() throws Exception {
        ResourceSpec resource = ResourceSpec.builder("mem://state", "state").cache(Duration.ofMinutes(1), CacheScope.PUBLIC)
                .handler((ctx, uri, vars) -> ReadResourceResult.of(
                        ResourceContents.text(uri, "text/plain", "v" + runs.incrementAndGet())))
                .build();
        try (McpServer server = server().resource(resource).build()) {
            ObjectNode params = Json.object().put("uri", "mem://state");
            ObjectNode first = call(server, null, "resources/read", params.deepCopy());
            ObjectNode cached = call(server, null, "resources/read", params.deepCopy());
            server.notifyResourceUpdated("mem://state");
            ObjectNode fresh = call(server, null, "resources/read", params.deepCopy());

            assertThat(cached.path("contents").path(0).path("text").asString()).isEqualTo("v1");
            assertThat(fresh.path("contents").path(0).path("text").asString()).isEqualTo("v2");
            assertThat(first.path("ttlMs").asLong()).isEqualTo(60_000);
            SpecSchemas.assertValid("2026-07-28", "ReadResourceResult", cached);
        }
    }

    @Test
    void promptsAreCachedByTheirArguments() throws Exception {
        PromptSpec prompt = PromptSpec.builder("greet").argument("name", null, true)
                .cache(Duration.ofMinutes(1), CacheScope.PUBLIC)
                .handler((ctx, args) -> GetPromptResult.of(null, PromptMessage.user(
                        new TextContent("hello " + args.get("name") + " " + runs.incrementAndGet(), null, null))))
                .build();
        try (McpServer server = server().prompt(prompt).build()) {
            ObjectNode ann = Json.object().put("name", "greet");
            ann.putObject("arguments").put("name", "ann");
            ObjectNode bo = Json.object().put("name", "greet");
            bo.putObject("arguments").put("name", "bo");
            call(server, null, "prompts/get", ann.deepCopy());
            ObjectNode again = call(server, null, "prompts/get", ann.deepCopy());
            ObjectNode other = call(server, null, "prompts/get", bo.deepCopy());
            assertThat(again.path("messages").path(0).path("content").path("text").asString()).isEqualTo("hello ann 1");
            assertThat(other.path("messages").path(0).path("content").path("text").asString()).isEqualTo("hello bo 2");
        }
    }

    @Test
    void theLeastValuableResultsAreEvictedUnderTheByteBound() throws Exception {
        String big = "x".repeat(10_000);
        ToolSpec large = ToolSpec.builder("large").inputSchema(ANY_OBJECT).cache(Duration.ofMinutes(1), CacheScope.PUBLIC)
                .handler((ctx, args) -> {
                    runs.incrementAndGet();
                    return CallToolResult.text(args.path("id").asString() + big);
                }).build();
        try (McpServer server = server().resultCacheMaxBytes(50_000).tool(large).build()) {
            for (int i = 0; i < 20; i++) {
                call(server, null, "tools/call", tool("large", "{\"id\":\"" + i + "\"}"));
            }
            assertThat(server.results().weight()).as("held bytes").isLessThanOrEqualTo(50_000).isGreaterThan(20_000);
            assertThat(server.results().size()).isBetween(2L, 4L);
        }
    }

    @Test
    void aToolCanBeMadeCacheableAtRunTime() throws Exception {
        ToolSpec plain = ToolSpec.builder("plain").inputSchema(ANY_OBJECT)
                .handler((ctx, args) -> CallToolResult.text("run " + runs.incrementAndGet())).build();
        try (McpServer server = server().tool(plain).build()) {
            assertThat(text(call(server, null, "tools/call", tool("plain", "{}")))).isEqualTo("run 1");
            assertThat(text(call(server, null, "tools/call", tool("plain", "{}")))).isEqualTo("run 2");
            server.cacheTool("plain", new CachePolicy(Duration.ofSeconds(5), CacheScope.PUBLIC));
            ObjectNode fresh = call(server, null, "tools/call", tool("plain", "{}"));
            assertThat(text(fresh)).isEqualTo("run 3");
            assertThat(fresh.path("ttlMs").asLong()).isEqualTo(5_000);
            nanos.addAndGet(1);
            ObjectNode hit = call(server, null, "tools/call", tool("plain", "{}"));
            assertThat(text(hit)).isEqualTo("run 3");
            assertThat(hit.path("ttlMs").asLong()).as("a hit says less than the whole ttl").isEqualTo(4_999);
            server.cacheTool("plain", null);
            assertThat(text(call(server, null, "tools/call", tool("plain", "{}")))).isEqualTo("run 4");
        }
    }

    @Test
    void theAnnotationDeclaresTheCachePolicy() {
        class Service {
            @Tool(cache = @Cache(ttl = "30s", scope = CacheScope.PUBLIC))
            public String lookup(String id) {
                return id;
            }

            @Resource(uri = "mem://x", cache = @Cache(ttl = "PT2M"))
            public String x() {
                return "x";
            }

            @Prompt
            public String plain() {
                return "p";
            }
        }
        try (McpServer server = McpServer.builder().register(new Service()).build()) {
            assertThat(server.registry().tool("lookup").cache())
                    .isEqualTo(new CachePolicy(Duration.ofSeconds(30), CacheScope.PUBLIC));
            assertThat(server.registry().resource("mem://x").cache())
                    .isEqualTo(new CachePolicy(Duration.ofMinutes(2), CacheScope.PRIVATE));
            assertThat(server.registry().prompt("plain").cache()).isNull();
        }
    }
}
