package dev.tern.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;

import dev.tern.protocol.Json;
import dev.tern.protocol.JsonRpcMessage;
import dev.tern.protocol.JsonRpcRequest;
import dev.tern.protocol.JsonRpcResult;
import dev.tern.protocol.McpMeta;
import dev.tern.protocol.RequestId;
import dev.tern.protocol.model.CallToolResult;

import tools.jackson.databind.node.ObjectNode;

/** Scopes declared on tools, resources and prompts, what a request needs, and lists for a caller. */
class ScopesTest {

    public static class Directory {
        @Tool(description = "One user", scopes = "users:read")
        public String getUser(String id) {
            return "user" + id;
        }

        @Tool(description = "Deletes a user", scopes = {"users:read", "users:write"})
        public String deleteUser(String id) {
            return "deleted " + id;
        }

        @Resource(uri = "users://{id}", scopes = "users:read")
        public String user(String id) {
            return "user" + id;
        }

        @Prompt(name = "audit", scopes = "audit")
        public String audit() {
            return "Audit the directory";
        }
    }

    private record FixedCaller(Set<String> scopes) implements Caller {
        @Override
        public String name() {
            return "issuer alice";
        }

        @Override
        public Map<String, Object> claims() {
            return Map.of("sub", "alice");
        }

        @Override
        public String downstreamToken(URI audience, Set<String> scopes) {
            throw new IllegalStateException("no token exchange");
        }
    }

    private static JsonRpcRequest request(String method, ObjectNode params) {
        ObjectNode p = params == null ? Json.object() : params;
        ObjectNode meta = p.putObject(McpMeta.KEY);
        meta.put(McpMeta.PROTOCOL_VERSION, "2026-07-28");
        meta.putObject(McpMeta.CLIENT_CAPABILITIES);
        return new JsonRpcRequest(RequestId.of(1), method, p);
    }

    private static List<String> toolsListedFor(McpServer server, Caller caller) throws InterruptedException {
        List<JsonRpcMessage> sent = new CopyOnWriteArrayList<>();
        server.serve(request("tools/list", null), new Outbound() {
            @Override
            public void send(JsonRpcMessage message, RequestId relatedTo) {
                sent.add(message);
            }

            @Override
            public Caller caller() {
                return caller;
            }
        });
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (sent.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        List<String> names = new java.util.ArrayList<>();
        ((JsonRpcResult) sent.get(0)).result().path("tools").forEach(t -> names.add(t.path("name").asString()));
        return names;
    }

    @Test
    void theAnnotationsScopesAreWhatARequestForTheFeatureNeeds() {
        McpServer server = McpServer.builder().register(new Directory()).build();
        ObjectNode call = Json.object().put("name", "deleteUser");
        ObjectNode read = Json.object().put("uri", "users://7");
        ObjectNode prompt = Json.object().put("name", "audit");

        assertThat(server.scopesFor(request("tools/call", call))).containsExactlyInAnyOrder("users:read", "users:write");
        assertThat(server.scopesFor(request("resources/read", read))).containsExactly("users:read");
        assertThat(server.scopesFor(request("prompts/get", prompt))).containsExactly("audit");
        assertThat(server.scopesFor(request("tools/list", null))).isEmpty();
        assertThat(server.scopesFor(request("tools/call", Json.object().put("name", "nope")))).isEmpty();
        assertThat(server.toolScopes("getUser")).containsExactly("users:read");
        assertThat(server.resourceScopes("users://42")).containsExactly("users:read");
        server.close();
    }

    @Test
    void aScopeThatCannotAppearInAChallengeIsRefusedAtBuildTime() {
        for (String bad : new String[] {"", "two words", "quo\"te", "back\\slash"}) {
            assertThatThrownBy(() -> ToolSpec.builder("t").scopes(bad))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("scope");
        }
    }

    @Test
    void aServerThatListsOnlyWhatIsPermittedLeavesOutToolsTheCallerLacksScopesFor() throws Exception {
        McpServer server = McpServer.builder().listOnlyPermitted(true).register(new Directory())
                .tool(ToolSpec.builder("open").handler((ctx, args) -> CallToolResult.text("open")).build())
                .build();
        assertThat(toolsListedFor(server, new FixedCaller(Set.of("users:read"))))
                .containsExactlyInAnyOrder("getUser", "open");
        assertThat(toolsListedFor(server, new FixedCaller(Set.of("users:read", "users:write"))))
                .containsExactlyInAnyOrder("getUser", "deleteUser", "open");
        assertThat(toolsListedFor(server, null)).as("no authenticated caller: everything")
                .containsExactlyInAnyOrder("getUser", "deleteUser", "open");
        server.close();
    }

    @Test
    void aServerListsEverythingByDefault() throws Exception {
        McpServer server = McpServer.builder().register(new Directory()).build();
        assertThat(toolsListedFor(server, new FixedCaller(Set.of()))).containsExactlyInAnyOrder("getUser",
                "deleteUser");
        server.close();
    }
}
