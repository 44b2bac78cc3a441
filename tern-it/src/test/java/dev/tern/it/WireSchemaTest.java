package dev.tern.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.tern.examples.UserDirectoryServer;
import dev.tern.protocol.Json;
import dev.tern.server.McpServer;
import dev.tern.testing.TestClient;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Every feature of the user-directory example, exercised in every revision Tern speaks; the test client checks each
 * message Tern writes against the official schema of that revision (and fails on close if one is invalid).
 */
class WireSchemaTest {
    private static final McpServer SERVER = UserDirectoryServer.create();

    @AfterAll
    static void close() {
        SERVER.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"})
    void everyFeatureIsSchemaValidInEveryRevision(String revision) {
        try (TestClient client = revision.equals(TestClient.MODERN) ? TestClient.modern(SERVER)
                : TestClient.legacy(SERVER, revision)) {
            if (revision.equals(TestClient.MODERN)) {
                assertThat(client.request("server/discover", null).result().path("supportedVersions").toString())
                        .contains("2026-07-28", "2025-11-25");
            } else {
                assertThat(client.initialize().path("protocolVersion").asString()).isEqualTo(revision);
                assertThat(client.request("ping", null).result().isEmpty()).isTrue();
                assertThat(client.request("logging/setLevel", Json.object().put("level", "debug")).isError()).isFalse();
                assertThat(client.request("resources/subscribe", Json.object().put("uri", "user://1")).isError()).isFalse();
            }
            JsonNode tools = client.request("tools/list", null).result().path("tools");
            assertThat(tools).extracting(t -> t.path("name").asString())
                    .containsExactly("get_user", "list_users", "search_users");

            JsonNode user = client.callTool("get_user", Json.object().put("id", "42")).result();
            assertThat(user.path("isError").asBoolean(false)).isFalse();
            assertThat(user.path("content").get(0).path("text").asString()).contains("\"id\":\"42\"");
            assertThat(client.callTool("get_user", Json.object().put("id", 42)).result().path("isError").asBoolean()).isTrue();
            assertThat(client.callTool("get_user", Json.object().put("id", "nobody")).result().path("isError").asBoolean()).isTrue();
            assertThat(client.callTool("no_such_tool", null).errorCode()).isEqualTo(-32602);

            JsonNode page = client.callTool("list_users", Json.object().put("limit", 3)).result();
            assertThat(page.path("content").get(0).path("text").asString()).contains("\"nextCursor\":\"3\"");
            JsonNode found = client.callTool("search_users", Json.object().put("query", "lovelace")).result();
            assertThat(found.path("isError").asBoolean(false)).isFalse();

            assertThat(client.request("resources/list", null).result().path("resources")).hasSize(1);
            assertThat(client.request("resources/templates/list", null).result().path("resourceTemplates").get(0)
                    .path("uriTemplate").asString()).isEqualTo("user://{id}");
            JsonNode read = client.request("resources/read", Json.object().put("uri", "user://7")).result();
            assertThat(read.path("contents").get(0).path("mimeType").asString()).isEqualTo("application/json");
            assertThat(client.request("resources/read", Json.object().put("uri", "users://stats")).isError()).isFalse();
            TestClient.Response missing = client.request("resources/read", Json.object().put("uri", "user://0"));
            assertThat(missing.errorCode()).isEqualTo(revision.equals(TestClient.MODERN) ? -32602 : -32002);

            assertThat(client.request("prompts/list", null).result().path("prompts").get(0).path("name").asString())
                    .isEqualTo("summarize_user");
            ObjectNode promptParams = Json.object().put("name", "summarize_user");
            promptParams.putObject("arguments").put("id", "7");
            JsonNode prompt = client.request("prompts/get", promptParams).result();
            assertThat(prompt.path("messages")).hasSize(2);
            assertThat(client.request("prompts/get", Json.object().put("name", "summarize_user")).errorCode()).isEqualTo(-32602);

            if (!revision.equals("2024-11-05")) {
                ObjectNode complete = Json.object();
                complete.putObject("ref").put("type", "ref/resource").put("uri", "user://{id}");
                complete.putObject("argument").put("name", "id").put("value", "10");
                JsonNode values = client.request("completion/complete", complete).result().path("completion").path("values");
                assertThat(values.get(0).asString()).isEqualTo("10");
                assertThat(values).hasSizeLessThanOrEqualTo(100);
            }
            assertThat(client.request("tools/list", Json.object().put("cursor", "not-a-cursor")).errorCode()).isEqualTo(-32602);
            assertThat(client.schemaViolations()).isEmpty();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"})
    void errorsAreSchemaValid(String revision) {
        try (TestClient client = revision.equals(TestClient.MODERN) ? TestClient.modern(SERVER)
                : TestClient.legacy(SERVER, revision)) {
            if (!revision.equals(TestClient.MODERN)) {
                client.initialize();
            }
            for (String bad : List.of("{\"jsonrpc\":\"2.0\",", "{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}",
                    "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}", "[]")) {
                client.sendRaw(bad);
            }
            assertThat(client.received()).hasSizeGreaterThanOrEqualTo(4);
        }
    }
}
