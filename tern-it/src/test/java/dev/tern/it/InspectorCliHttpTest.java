package dev.tern.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.tern.examples.UserDirectory;
import dev.tern.protocol.Json;

import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.JsonNode;

/**
 * The MCP Inspector's command line ({@code @modelcontextprotocol/inspector}, pinned in {@code package.json}, run on
 * the Node 22 of {@link NodeTools}) against {@code tern serve} over Streamable HTTP, as its users run it:
 * {@code inspector --cli URL --method ...}. It prints the result as JSON on stdout, asserted on here.
 *
 * <p>The Inspector turns each {@code --tool-arg key=value} into JSON when the value parses as JSON, and only
 * converts string values to the type the tool's input schema declares; so {@code --tool-arg id=7} sends the number
 * 7, which {@code get_user}'s {@code {"type": "string"}} refuses with a tool error (and the Inspector exits 5). A
 * quoted {@code id="7"} sends the string.
 */
class InspectorCliHttpTest {
    private static final Duration RUN_TIMEOUT = Duration.ofSeconds(90);
    private static final String PACKAGE = "@modelcontextprotocol/inspector";
    private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {
    };

    private static Path node;
    private static Path inspector;
    private static TernProcess tern;

    @TempDir
    static Path home;

    @BeforeAll
    static void start() throws Exception {
        node = NodeTools.node();
        Path packageDir = NodeTools.npmDir().resolve("node_modules").resolve(PACKAGE);
        JsonNode manifest = Json.mapper().readTree(Files.readString(packageDir.resolve("package.json")));
        assertThat(manifest.path("version").asString()).isEqualTo(NodeTools.pinnedVersion(PACKAGE));
        inspector = packageDir.resolve(manifest.path("bin").path("mcp-inspector").asString()).normalize();
        assertThat(inspector).isRegularFile();
        tern = TernProcess.http("user-directory");
    }

    @AfterAll
    static void stop() throws Exception {
        if (tern != null) {
            String stderr = tern.stderr();
            tern.close();
            JavaSdkClientHttpTest.assertNoServerErrors(stderr);
        }
    }

    @Test
    void listsTheTools() throws Exception {
        NodeTools.Result result = inspect("--method", "tools/list");

        assertThat(result.exitCode()).as(result.describe()).isZero();
        JsonNode tools = json(result).path("tools");
        List<String> names = new ArrayList<>();
        tools.forEach(t -> names.add(t.path("name").asString()));
        assertThat(names).containsExactlyInAnyOrder("get_user", "search_users", "list_users");
        JsonNode getUser = tool(tools, "get_user");
        assertThat(getUser.path("inputSchema").path("type").asString()).isEqualTo("object");
        assertThat(getUser.path("inputSchema").path("properties").path("id").path("type").asString()).isEqualTo("string");
        assertThat(getUser.path("outputSchema").path("type").asString()).isEqualTo("object");
        assertThat(getUser.path("annotations").path("readOnlyHint").asBoolean()).isTrue();
    }

    @Test
    void findsNoPortabilityProblemInTheToolSchemas() throws Exception {
        NodeTools.Result result = inspect("--method", "tools/list", "--strict");

        // --strict exits 6 when a tool schema has an error-severity portability problem
        assertThat(result.exitCode()).as(result.describe()).isZero();
    }

    @Test
    void callsGetUserWithAnUnquotedNumberAndGetsAToolErrorForTheWrongType() throws Exception {
        NodeTools.Result result = inspect("--method", "tools/call", "--tool-name", "get_user", "--tool-arg", "id=7");

        assertThat(result.exitCode()).as("the Inspector's exit code for a tool error: %s", result.describe()).isEqualTo(5);
        JsonNode answer = json(result);
        assertThat(answer.path("isError").asBoolean()).as(result.describe()).isTrue();
        assertThat(answer.path("content").get(0).path("type").asString()).isEqualTo("text");
        assertThat(answer.path("content").get(0).path("text").asString()).contains("id", "string");
        assertThat(answer.has("structuredContent")).isFalse();
        assertThat(result.stderr()).contains("tool_is_error");
    }

    @Test
    void callsGetUserWithAStringIdAndGetsTheUserAsStructuredContent() throws Exception {
        NodeTools.Result result = inspect("--method", "tools/call", "--tool-name", "get_user", "--tool-arg", "id=\"7\"");

        assertThat(result.exitCode()).as(result.describe()).isZero();
        assertUserSeven(json(result));
    }

    @Test
    void callsGetUserStatelesslyIn20260728() throws Exception {
        NodeTools.Result result = inspect("--protocol-era", "modern",
                "--method", "tools/call", "--tool-name", "get_user", "--tool-args-json", "{\"id\":\"7\"}");

        assertThat(result.exitCode()).as(result.describe()).isZero();
        JsonNode answer = json(result);
        assertUserSeven(answer);
        assertThat(answer.path("_meta").path("io.modelcontextprotocol/serverInfo").path("name").asString())
                .isEqualTo("tern-user-directory");
    }

    @Test
    void readsAResource() throws Exception {
        NodeTools.Result result = inspect("--method", "resources/read", "--uri", "user://7");

        assertThat(result.exitCode()).as(result.describe()).isZero();
        JsonNode contents = json(result).path("contents");
        assertThat(contents.size()).isEqualTo(1);
        assertThat(contents.get(0).path("uri").asString()).isEqualTo("user://7");
        assertThat(contents.get(0).path("mimeType").asString()).isEqualTo("application/json");
        assertThat(Json.mapper().readValue(contents.get(0).path("text").asString(), MAP)).isEqualTo(userSeven());
    }

    // ---------------------------------------------------------------------------------------------------------

    /** Runs {@code mcp-inspector --cli URL ARGS} with its home (config, catalog, secrets) in a temporary directory. */
    private static NodeTools.Result inspect(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(node.toString(), inspector.toString(), "--cli", tern.url()));
        command.addAll(List.of(args));
        NodeTools.Result result = NodeTools.run(command, home, Map.of("HOME", home.toString(),
                "MCP_CATALOG_PATH", home.resolve("mcp.json").toString(), "NO_COLOR", "1"), RUN_TIMEOUT);
        assertThat(result.timedOut()).as("the Inspector ran too long: %s", result.describe()).isFalse();
        return result;
    }

    private static JsonNode json(NodeTools.Result result) {
        try {
            return Json.mapper().readTree(result.stdout());
        } catch (RuntimeException e) {
            throw new AssertionError("the Inspector printed no JSON: " + result.describe(), e);
        }
    }

    private static JsonNode tool(JsonNode tools, String name) {
        for (JsonNode t : tools) {
            if (t.path("name").asString().equals(name)) {
                return t;
            }
        }
        throw new AssertionError("no tool " + name + " in " + tools);
    }

    private static Map<String, Object> userSeven() {
        return Json.mapper().convertValue(UserDirectory.generate(1_000).find("7").orElseThrow(), MAP);
    }

    private static void assertUserSeven(JsonNode answer) {
        assertThat(answer.path("isError").asBoolean(false)).isFalse();
        assertThat(Json.mapper().convertValue(answer.path("structuredContent"), MAP)).isEqualTo(userSeven());
        assertThat(answer.path("content").get(0).path("type").asString()).isEqualTo("text");
        assertThat(Json.mapper().readValue(answer.path("content").get(0).path("text").asString(), MAP))
                .isEqualTo(userSeven());
    }
}
