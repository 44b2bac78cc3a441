package dev.tern.transport.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.tern.protocol.Json;
import dev.tern.protocol.model.CallToolResult;
import dev.tern.server.CacheScope;
import dev.tern.server.McpServer;
import dev.tern.server.ToolSpec;

import tools.jackson.databind.node.ObjectNode;

/**
 * Private cached results are kept per the principal the transport resolves for each request, for MCP and REST calls
 * alike.
 */
class CachedResultsOverHttpTest {

    @Test
    void aPrivateResultIsServedOnlyToThePrincipalItWasMadeFor() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        ObjectNode anyObject = (ObjectNode) Json.mapper().readTree("{\"type\":\"object\"}");
        McpServer server = McpServer.builder()
                .tool(ToolSpec.builder("balance").inputSchema(anyObject).cache(Duration.ofMinutes(1), CacheScope.PRIVATE)
                        .handler((ctx, args) -> CallToolResult.text("run " + runs.incrementAndGet())).build())
                .build();
        HttpServerTransport transport = HttpServerTransport.builder(server).host("127.0.0.1").port(0)
                .sessions(s -> s.principals(headers -> {
                    String auth = headers.get("authorization");
                    return auth != null && auth.startsWith("Bearer ") ? auth.substring(7) : null;
                }))
                .build().start();
        try (Mcp mcp = new Mcp(transport, HttpClient.Version.HTTP_1_1)) {
            assertThat(call(mcp, "alice")).isEqualTo("run 1");
            assertThat(call(mcp, "bob")).isEqualTo("run 2");
            assertThat(call(mcp, "alice")).isEqualTo("run 1");
            assertThat(call(mcp, "bob")).isEqualTo("run 2");
            assertThat(call(mcp, null)).as("an anonymous caller is never served a private copy").isEqualTo("run 3");
        } finally {
            transport.close();
            server.close();
        }
    }

    @Test
    void theRestFacadeSharesTheCacheOfMcpCallsPerPrincipal() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        ObjectNode anyObject = (ObjectNode) Json.mapper().readTree("{\"type\":\"object\"}");
        McpServer server = McpServer.builder()
                .tool(ToolSpec.builder("balance").inputSchema(anyObject).cache(Duration.ofMinutes(1), CacheScope.PRIVATE)
                        .handler((ctx, args) -> CallToolResult.text("run " + runs.incrementAndGet())).build())
                .tool(ToolSpec.builder("rate").inputSchema(anyObject).cache(Duration.ofMinutes(1), CacheScope.PUBLIC)
                        .handler((ctx, args) -> CallToolResult.text("rate " + runs.incrementAndGet())).build())
                .build();
        HttpServerTransport transport = HttpServerTransport.builder(server).host("127.0.0.1").port(0).restFacade(true)
                .sessions(s -> s.principals(headers -> {
                    String auth = headers.get("authorization");
                    return auth != null && auth.startsWith("Bearer ") ? auth.substring(7) : null;
                }))
                .build().start();
        try (Mcp mcp = new Mcp(transport, HttpClient.Version.HTTP_1_1)) {
            assertThat(rest(mcp, "balance", "alice")).isEqualTo("run 1");
            assertThat(rest(mcp, "balance", "alice")).isEqualTo("run 1");
            assertThat(call(mcp, "alice")).as("the MCP call is served the REST call's copy").isEqualTo("run 1");
            assertThat(rest(mcp, "balance", "bob")).isEqualTo("run 2");
            assertThat(call(mcp, "bob")).isEqualTo("run 2");
            assertThat(rest(mcp, "balance", null)).as("an anonymous caller is never served a private copy")
                    .isEqualTo("run 3");
            assertThat(rest(mcp, "balance", null)).isEqualTo("run 4");

            assertThat(rest(mcp, "rate", null)).isEqualTo("rate 5");
            assertThat(rest(mcp, "rate", "carol")).as("a public result serves everyone").isEqualTo("rate 5");
            assertThat(runs).hasValue(5);
        } finally {
            transport.close();
            server.close();
        }
    }

    /** {@code POST /rest/tools/{tool}} with the same arguments as {@link #call}; the text of the content returned. */
    private static String rest(Mcp mcp, String tool, String principal) {
        java.net.http.HttpRequest.Builder b = java.net.http.HttpRequest.newBuilder(mcp.uri.resolve("/rest/tools/" + tool))
                .timeout(java.time.Duration.ofSeconds(20)).header("Content-Type", "application/json")
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{\"account\":\"main\"}"));
        if (principal != null) {
            b.header("Authorization", "Bearer " + principal);
        }
        Mcp.Reply reply = mcp.send(b.build());
        assertThat(reply.status()).as("%s", reply).isEqualTo(200);
        return Json.mapper().readTree(reply.body()).path(0).path("text").asString();
    }

    private static String call(Mcp mcp, String principal) {
        ObjectNode params = Mcp.meta(Mcp.toolCall("balance", Mcp.args("account", "main")));
        Map<String, String> headers = new java.util.LinkedHashMap<>(Mcp.modernHeaders("tools/call", "balance"));
        if (principal != null) {
            headers.put("Authorization", "Bearer " + principal);
        }
        Mcp.Reply reply = mcp.post(Mcp.request(1, "tools/call", params), headers);
        assertThat(reply.status()).as("%s", reply).isEqualTo(200);
        ObjectNode result = (ObjectNode) reply.json().path("result");
        assertThat(result.path("cacheScope").asString()).isEqualTo("private");
        return result.path("content").path(0).path("text").asString();
    }
}
