package dev.tern.examples;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

import dev.tern.protocol.Json;
import dev.tern.server.CallOutcome;
import dev.tern.server.McpServer;

import org.junit.jupiter.api.Test;

import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/** The plain HTTP routes examples contribute, checked without any HTTP. */
class ExampleRoutesTest {
    record Mounted(String path, String description, Function<Map<String, String>, Optional<?>> handler) {
    }

    @Test
    void theUserDirectoryServesGetUsersByIdAsTheGetUserToolDoes() throws Exception {
        List<Mounted> routes = new ArrayList<>();
        McpServer server = Examples.create("user-directory", (path, description, handler) ->
                routes.add(new Mounted(path, description, handler)));
        try {
            assertThat(routes).extracting(Mounted::path).containsExactly("/users/{id}");
            Mounted users = routes.get(0);
            JsonNode viaRoute = Json.mapper().valueToTree(users.handler().apply(Map.of("id", "42")).orElseThrow());
            CallOutcome viaTool = server.callTool("get_user", Json.mapper().readValue("{\"id\":\"42\"}",
                    tools.jackson.databind.node.ObjectNode.class)).get(20, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(viaTool).isInstanceOf(CallOutcome.Done.class);
            assertThat(viaRoute).isEqualTo(((CallOutcome.Done) viaTool).result().path("structuredContent"));
            assertThat(users.handler().apply(Map.of("id", "100000"))).isEmpty();
        } finally {
            server.close();
        }
    }

    @Test
    void theConformanceExampleHasNoRoutes() {
        List<String> paths = new ArrayList<>();
        McpServer server = Examples.create("conformance", (path, description, handler) -> paths.add(path));
        server.close();
        assertThat(paths).isEmpty();
    }
}
