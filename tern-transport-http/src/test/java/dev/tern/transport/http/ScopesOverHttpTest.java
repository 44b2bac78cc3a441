package dev.tern.transport.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.tern.auth.ResourceServer;
import dev.tern.auth.TokenExchange;
import dev.tern.protocol.Json;
import dev.tern.protocol.model.CallToolResult;
import dev.tern.server.McpServer;
import dev.tern.server.ToolSpec;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import no.nav.security.mock.oauth2.MockOAuth2Server;

/**
 * Scopes per tool over real HTTP with tokens from mock-oauth2-server: a token without a tool's scope gets 403
 * {@code insufficient_scope} naming what to ask for, lists leave out what the caller may not call, and a handler
 * sees its caller but never the token.
 */
class ScopesOverHttpTest {
    private static MockOAuth2Server authorizationServer;
    private static ResourceServer resourceServer;
    private static McpServer server;
    private static HttpServerTransport transport;
    private static String resource;
    private static com.sun.net.httpserver.HttpServer upstream;
    private static final List<String> upstreamAuthorizations = new java.util.concurrent.CopyOnWriteArrayList<>();
    private static final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    @BeforeAll
    static void start() throws Exception {
        authorizationServer = new MockOAuth2Server();
        authorizationServer.start(InetAddress.getLoopbackAddress(), 0);
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        resource = "http://127.0.0.1:" + port + "/mcp";
        upstream = com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress(
                InetAddress.getLoopbackAddress(), 0), 0);
        upstream.createContext("/orders", exchange -> {
            upstreamAuthorizations.add(String.valueOf(exchange.getRequestHeaders().getFirst("Authorization")));
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        upstream.start();
        String upstreamUri = "http://127.0.0.1:" + upstream.getAddress().getPort() + "/orders";
        resourceServer = ResourceServer.builder(resource)
                .authorizationServer(authorizationServer.issuerUrl("default").toString())
                .scopesSupported("users:read", "users:write")
                // The authorization server issues the downstream token for the principal: its own key, its audience.
                .tokenExchange((subjectToken, principal, audience, scopes) -> new TokenExchange.DownstreamToken(
                        authorizationServer.issueToken("default", principal.subject(), audience.toString(),
                                Map.of("scope", String.join(" ", scopes)), 300).serialize(), "Bearer", null))
                .httpTimeout(Duration.ofSeconds(30))
                .build();
        server = McpServer.builder().info("scoped", "1.0.0").listOnlyPermitted(true)
                .tool(ToolSpec.builder("whoami").description("Who is calling.").scopes("users:read")
                        .handler((ctx, args) -> CallToolResult.text(ctx.caller().name() + " | "
                                + ctx.caller().scopes() + " | " + ctx.caller().claims().get("client_id") + " | "
                                + ctx.caller().claims().keySet()))
                        .build())
                .tool(ToolSpec.builder("order_history").description("Calls the order service for the caller.")
                        .scopes("users:read")
                        .handler((ctx, args) -> {
                            String downstream = ctx.caller().downstreamToken(URI.create(upstreamUri),
                                    java.util.Set.of("orders:read"));
                            try {
                                int status = http.send(HttpRequest.newBuilder(URI.create(upstreamUri))
                                        .header("Authorization", "Bearer " + downstream).GET().build(),
                                        HttpResponse.BodyHandlers.discarding()).statusCode();
                                return CallToolResult.text("upstream " + status);
                            } catch (Exception e) {
                                return CallToolResult.text("upstream failed: " + e);
                            }
                        })
                        .build())
                .tool(ToolSpec.builder("delete_user").description("Deletes a user.").scopes("users:write")
                        .handler((ctx, args) -> CallToolResult.text("deleted"))
                        .build())
                .build();
        transport = HttpServerTransport.builder(server).port(port).restFacade(true).auth(resourceServer).build()
                .start();
    }

    @AfterAll
    static void stop() {
        transport.close();
        server.close();
        upstream.stop(0);
        resourceServer.close();
        authorizationServer.shutdown();
    }

    private static String token(String scope) {
        return authorizationServer.issueToken("default", "alice", resource,
                Map.of("scope", scope, "client_id", "test-client"), 3600).serialize();
    }

    private static HttpResponse<String> modern(String token, String method, ObjectNode params, String name)
            throws Exception {
        Map<String, String> headers = new LinkedHashMap<>(Mcp.modernHeaders(method, name));
        headers.put("Authorization", "Bearer " + token);
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(resource)).timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(Mcp.request(1, method, Mcp.meta(params))))
                .header("Content-Type", "application/json").header("Accept", Mcp.ACCEPT);
        headers.forEach(b::header);
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aTokenWithoutTheToolsScopeGets403InsufficientScopeNamingWhatToAskFor() throws Exception {
        HttpResponse<String> refused = modern(token("users:read"), "tools/call",
                Mcp.toolCall("delete_user", null), "delete_user");

        assertThat(refused.statusCode()).isEqualTo(403);
        assertThat(refused.headers().firstValue("www-authenticate").orElseThrow())
                .startsWith("Bearer error=\"insufficient_scope\", scope=\"users:read users:write\", resource_metadata=");
        assertThat(Json.mapper().readTree(refused.body()).path("id").asInt()).isEqualTo(1);

        HttpResponse<String> stepUp = modern(token("users:read users:write"), "tools/call",
                Mcp.toolCall("delete_user", null), "delete_user");
        assertThat(stepUp.statusCode()).as(stepUp.body()).isEqualTo(200);
        assertThat(stepUp.body()).contains("deleted");
    }

    @Test
    void theRestFacadeChecksTheSameScopes() throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(resource.replace("/mcp", "/rest/tools/delete_user")))
                .timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.ofString("{}"))
                .header("Content-Type", "application/json").header("Authorization", "Bearer " + token("users:read"));
        HttpResponse<String> refused = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        assertThat(refused.statusCode()).isEqualTo(403);
        assertThat(refused.headers().firstValue("www-authenticate").orElseThrow())
                .contains("error=\"insufficient_scope\"");
    }

    @Test
    void theToolListLeavesOutWhatTheCallerMayNotCall() throws Exception {
        List<String> readOnly = toolNames(modern(token("users:read"), "tools/list", null, null));
        List<String> both = toolNames(modern(token("users:read users:write"), "tools/list", null, null));
        List<String> none = toolNames(modern(token("profile"), "tools/list", null, null));

        assertThat(readOnly).containsExactly("whoami", "order_history");
        assertThat(both).containsExactly("whoami", "order_history", "delete_user");
        assertThat(none).isEmpty();
    }

    @Test
    void aHandlerSeesItsCallersNameScopesAndClaimsButNotTheToken() throws Exception {
        String token = token("users:read");
        HttpResponse<String> response = modern(token, "tools/call", Mcp.toolCall("whoami", null), "whoami");

        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        String text = Json.mapper().readTree(response.body()).path("result").path("content").path(0).path("text")
                .asString();
        assertThat(text).startsWith(authorizationServer.issuerUrl("default") + " alice | [users:read] | test-client");
        assertThat(text).contains("sub").doesNotContain(token.substring(token.lastIndexOf('.') + 1));
    }

    @Test
    void aToolCalledThroughTheRestFacadeSeesTheSameCallerAsOverMcp() throws Exception {
        HttpRequest.Builder whoami = HttpRequest.newBuilder(URI.create(resource.replace("/mcp", "/rest/tools/whoami")))
                .timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.ofString("{}"))
                .header("Content-Type", "application/json").header("Authorization", "Bearer " + token("users:read"));
        HttpResponse<String> response = http.send(whoami.build(), HttpResponse.BodyHandlers.ofString());

        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(Json.mapper().readTree(response.body()).path(0).path("text").asString())
                .startsWith(authorizationServer.issuerUrl("default") + " alice | [users:read] | test-client");
    }

    @Test
    void aToolReachesADownstreamServiceWithAnExchangedTokenNeverTheCallersOwn() throws Exception {
        String inbound = token("users:read");
        HttpResponse<String> response = modern(inbound, "tools/call", Mcp.toolCall("order_history", null),
                "order_history");

        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(response.body()).contains("upstream 204");
        assertThat(upstreamAuthorizations).hasSize(1);
        String sent = upstreamAuthorizations.get(0);
        assertThat(sent).startsWith("Bearer ").isNotEqualTo("Bearer " + inbound);
        var claims = com.nimbusds.jwt.SignedJWT.parse(sent.substring(7)).getJWTClaimsSet();
        assertThat(claims.getAudience()).containsExactly("http://127.0.0.1:" + upstream.getAddress().getPort()
                + "/orders");
        assertThat(claims.getSubject()).isEqualTo("alice");
    }

    private static List<String> toolNames(HttpResponse<String> response) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        JsonNode tools = Json.mapper().readTree(response.body()).path("result").path("tools");
        List<String> names = new java.util.ArrayList<>();
        tools.forEach(t -> names.add(t.path("name").asString()));
        return names;
    }
}
