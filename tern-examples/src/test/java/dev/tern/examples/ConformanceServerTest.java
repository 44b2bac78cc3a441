package dev.tern.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import javax.imageio.ImageIO;
import javax.sound.sampled.AudioFileFormat;
import javax.sound.sampled.AudioSystem;

import dev.tern.protocol.Json;
import dev.tern.protocol.RequestId;
import dev.tern.server.McpServer;
import dev.tern.server.TaskSupport;
import dev.tern.testing.TestClient;
import dev.tern.testing.TestClient.Response;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Drives {@link ConformanceServer} the way the official conformance suite does and checks what its scenarios check,
 * scenario by scenario, in a legacy 2025-11-25 session and over the stateless 2026-07-28 protocol: the
 * {@code input_required} keys and batching, and the task fixtures as 2025-11-25 experimental tasks and as tasks of the
 * 2026-07-28 tasks extension. Every message the server sends is also checked against the official schema of the
 * revision when the client closes.
 */
class ConformanceServerTest {
    private static final Pattern TOOL_NAME = Pattern.compile("[A-Za-z0-9_.-]{1,128}");
    private static final String LEGACY = "2025-11-25";
    private static final String TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
    private static final Pattern ISO_8601 = Pattern.compile("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}.*");
    private static final Set<String> TERMINAL = Set.of("completed", "failed", "cancelled");
    private static final ObjectNode CONFIRM_REQUEST = json("""
            {"confirm":{"method":"elicitation/create","params":{"message":"Please confirm",
              "requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}}}}""");

    private McpServer server;

    @BeforeEach
    void start() {
        server = ConformanceServer.create();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    /** The two eras the carry-over scenarios run in. */
    enum Era {
        LEGACY, MODERN;

        TestClient open(McpServer server) {
            if (this == LEGACY) {
                // What the suite's SDK client declares.
                TestClient client = TestClient.legacy(server, ConformanceServerTest.LEGACY)
                        .capabilities(json("{\"sampling\":{},\"elicitation\":{}}"));
                client.initialize();
                return client;
            }
            // What the suite puts in the _meta of its stateless requests.
            return TestClient.modern(server)
                    .capabilities(json("{\"sampling\":{},\"elicitation\":{},\"roots\":{\"listChanged\":true}}"));
        }
    }

    // ==================================================================== scenarios in both eras

    @ParameterizedTest
    @EnumSource(Era.class)
    void completionComplete(Era era) {
        try (TestClient client = era.open(server)) {
            JsonNode result = client.request("completion/complete", json("""
                    {"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},
                     "argument":{"name":"arg1","value":"test"}}""")).result();
            assertThat(result.path("completion").path("values").isArray()).isTrue();
            assertThat(strings(result.path("completion").path("values")))
                    .containsExactly("testValue1", "testValue2", "testValue3");
            assertComplete(era, result);
        }
    }

    @ParameterizedTest
    @EnumSource(Era.class)
    void completionOfTemplateVariable(Era era) {
        try (TestClient client = era.open(server)) {
            JsonNode result = client.request("completion/complete", json("""
                    {"ref":{"type":"ref/resource","uri":"test://template/{id}/data"},
                     "argument":{"name":"id","value":"4"}}""")).result();
            assertThat(strings(result.path("completion").path("values"))).containsExactly("456");
        }
    }

    @ParameterizedTest
    @EnumSource(Era.class)
    void toolsList(Era era) {
        try (TestClient client = era.open(server)) {
            JsonNode tools = client.request("tools/list", Json.object()).result().path("tools");
            assertThat(tools.isArray()).isTrue();
            List<String> names = new ArrayList<>();
            for (JsonNode tool : tools) {
                String name = tool.path("name").asString("");
                names.add(name);
                // tools-list: name, description, inputSchema; tools-name-format
                assertThat(name).matches(TOOL_NAME);
                assertThat(tool.path("description").asString("")).as("description of %s", name).isNotBlank();
                assertThat(tool.path("inputSchema").path("type").asString("")).as("inputSchema of %s", name)
                        .isEqualTo("object");
            }
            assertThat(names).containsExactlyElementsOf(ConformanceServer.TOOLS);
            // The header probes call tools[0] with {}: it must take no arguments.
            JsonNode first = tools.get(0);
            assertThat(first.path("name").asString("")).isEqualTo("test_simple_text");
            assertThat(first.path("inputSchema").path("properties").size()).isZero();
            assertThat(first.path("inputSchema").has("required")).isFalse();
            // tools-list-deterministic-order (2026-07-28 calls tools/list twice more)
            for (int i = 0; i < 2; i++) {
                JsonNode again = client.request("tools/list", Json.object()).result().path("tools");
                List<String> againNames = new ArrayList<>();
                again.forEach(t -> againNames.add(t.path("name").asString("")));
                assertThat(againNames).containsExactlyElementsOf(names);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Era.class)
    void toolsCallSimpleText(Era era) {
        try (TestClient client = era.open(server)) {
            // stateful: {name} only; stateless: no arguments key either
            JsonNode result = client.request("tools/call", json("{\"name\":\"test_simple_text\"}")).result();
            JsonNode content = result.path("content");
            assertThat(content.size()).isPositive();
            assertThat(content.get(0).path("type").asString("")).isEqualTo("text");
            assertThat(content.get(0).path("text").asString("")).isEqualTo(ConformanceServer.SIMPLE_TEXT);
            assertThat(result.has("isError")).isFalse();
            assertComplete(era, result);
        }
    }

    @ParameterizedTest
    @EnumSource(Era.class)
    void toolsCallImage(Era era) throws Exception {
        try (TestClient client = era.open(server)) {
            JsonNode item = firstOfType(client.callTool("test_image_content", Json.object()).result(), "image");
            assertThat(item.path("mimeType").asString("")).isEqualTo("image/png");
            assertPng(item.path("data").asString(""));
        }
    }

    @ParameterizedTest
    @EnumSource(Era.class)
    void toolsCallAudio(Era era) throws Exception {
        try (TestClient client = era.open(server)) {
            JsonNode item = firstOfType(client.callTool("test_audio_content", Json.object()).result(), "audio");
            assertThat(item.path("mimeType").asString("")).isEqualTo("audio/wav");
            byte[] wav = Base64.getDecoder().decode(item.path("data").asString(""));
            AudioFileFormat format = AudioSystem.getAudioFileFormat(new ByteArrayInputStream(wav));
            assertThat(format.getType()).isEqualTo(AudioFileFormat.Type.WAVE);
            assertThat(format.getFrameLength()).isPositive();
        }
    }

    @ParameterizedTest
    @EnumSource(Era.class)
    void toolsCallEmbeddedResource(Era era) {
        try (TestClient client = era.open(server)) {
            JsonNode resource = firstOfType(client.callTool("test_embedded_resource", Json.object()).result(), "resource")
                    .path("resource");
            assertThat(resource.path("uri").asString("")).isEqualTo("test://embedded-resource");
            assertThat(resource.path("mimeType").asString("")).isEqualTo("text/plain");
            assertThat(resource.path("text").asString("")).isNotEmpty();
        }
    }

    @ParameterizedTest
    @EnumSource(Era.class)
    void toolsCallMixedContent(Era era) {
        try (TestClient client = era.open(server)) {
            JsonNode result = client.callTool("test_multiple_content_types", Json.object()).result();
            assertThat(result.path("content").size()).isGreaterThanOrEqualTo(2);
            assertThat(firstOfType(result, "text").path("text").asString("")).isNotEmpty();
            assertThat(firstOfType(result, "image").path("data").asString("")).isNotEmpty();
            JsonNode resource = firstOfType(result, "resource").path("resource");
            assertThat(resource.path("uri").asString("")).isEqualTo("test://mixed-content-resource");
            assertThat(json(resource.path("text").asString(""))).isEqualTo(json("{\"test\":\"data\",\"value\":123}"));
        }
    }

    @ParameterizedTest
    @EnumSource(Era.class)
    void toolsCallError(Era era) {
        try (TestClient client = era.open(server)) {
            Response response = client.callTool("test_error_handling", Json.object());
            assertThat(response.isError()).as("a tool error is a result, not a JSON-RPC error").isFalse();
            JsonNode result = response.result();
            assertThat(result.path("isError").asBoolean(false)).isTrue();
            assertThat(result.path("content").get(0).path("text").asString("")).isEqualTo(ConformanceServer.ERROR_TEXT);
        }
    }

    @ParameterizedTest
    @EnumSource(Era.class)
    void toolsCallWithProgressStringToken(Era era) {
        try (TestClient client = era.open(server)) {
            assertProgress(client, Json.mapper().getNodeFactory().stringNode("progress-test-1"));
        }
    }

    @Test
    void toolsCallWithProgressNumberToken() {
        // 0.1.16 sends the SDK's message id, a number; its JSON type must be echoed.
        try (TestClient client = Era.LEGACY.open(server)) {
            assertProgress(client, Json.mapper().getNodeFactory().numberNode(7));
        }
    }

    private static void assertProgress(TestClient client, JsonNode token) {
        ObjectNode params = json("{\"name\":\"test_tool_with_progress\",\"arguments\":{}}");
        params.putObject("_meta").set("progressToken", token);
        RequestId id = client.send("tools/call", params);
        JsonNode result = client.await(id).result();
        assertThat(result.path("content").size()).isPositive();
        List<JsonNode> progress = before(client, id, "notifications/progress");
        assertThat(progress).hasSizeGreaterThanOrEqualTo(3);
        double last = Double.NEGATIVE_INFINITY;
        for (JsonNode n : progress) {
            JsonNode p = n.path("params");
            assertThat(p.get("progressToken")).isEqualTo(token);
            assertThat(p.path("progress").asDouble()).isGreaterThanOrEqualTo(last);
            assertThat(p.path("total").asDouble()).isEqualTo(100.0);
            last = p.path("progress").asDouble();
        }
        assertThat(progress.get(0).path("params").path("progress").asDouble()).isZero();
        assertThat(last).isEqualTo(100.0);
    }

    @ParameterizedTest
    @EnumSource(Era.class)
    void resourcesList(Era era) {
        try (TestClient client = era.open(server)) {
            JsonNode result = client.request("resources/list", Json.object()).result();
            JsonNode resources = result.path("resources");
            assertThat(resources.isArray()).isTrue();
            Map<String, String> mimeTypes = new java.util.HashMap<>();
            for (JsonNode r : resources) {
                assertThat(r.path("uri").asString("")).isNotEmpty();
                assertThat(r.path("name").asString("")).isNotEmpty();
                mimeTypes.put(r.path("uri").asString(""), r.path("mimeType").asString(""));
            }
            assertThat(mimeTypes).isEqualTo(ConformanceServer.RESOURCES);
            assertThat(resources.get(0).path("uri").asString("")).isEqualTo("test://static-text");
            assertComplete(era, result);
            JsonNode templates = client.request("resources/templates/list", Json.object()).result().path("resourceTemplates");
            assertThat(templates.size()).isEqualTo(1);
            assertThat(templates.get(0).path("uriTemplate").asString("")).isEqualTo("test://template/{id}/data");
            assertThat(templates.get(0).path("name").asString("")).isNotEmpty();
        }
    }

    @ParameterizedTest
    @EnumSource(Era.class)
    void resourcesReadText(Era era) {
        try (TestClient client = era.open(server)) {
            JsonNode result = read(client, "test://static-text").result();
            JsonNode c = result.path("contents").get(0);
            assertThat(c.path("uri").asString("")).isEqualTo("test://static-text");
            assertThat(c.path("mimeType").asString("")).isEqualTo("text/plain");
            assertThat(c.path("text").asString("")).isEqualTo(ConformanceServer.STATIC_TEXT);
            assertComplete(era, result);
        }
    }

    @ParameterizedTest
    @EnumSource(Era.class)
    void resourcesReadBinary(Era era) throws Exception {
        try (TestClient client = era.open(server)) {
            JsonNode c = read(client, "test://static-binary").result().path("contents").get(0);
            assertThat(c.path("uri").asString("")).isEqualTo("test://static-binary");
            assertThat(c.path("mimeType").asString("")).isEqualTo("image/png");
            assertPng(c.path("blob").asString(""));
        }
    }

    @ParameterizedTest
    @EnumSource(Era.class)
    void resourcesTemplatesRead(Era era) {
        try (TestClient client = era.open(server)) {
            JsonNode c = read(client, "test://template/123/data").result().path("contents").get(0);
            assertThat(c.path("uri").asString("")).isEqualTo("test://template/123/data");
            assertThat(c.path("mimeType").asString("")).isEqualTo("application/json");
            assertThat(c.path("text").asString("")).contains("123");
            assertThat(json(c.path("text").asString("")))
                    .isEqualTo(json("{\"id\":\"123\",\"templateTest\":true,\"data\":\"Data for ID: 123\"}"));
        }
    }

    @Test
    void templateVariablesAreEscapedAsJson() {
        try (TestClient client = Era.LEGACY.open(server)) {
            JsonNode c = read(client, "test://template/a%22b/data").result().path("contents").get(0);
            JsonNode data = json(c.path("text").asString(""));
            assertThat(data.path("data").asString("")).startsWith("Data for ID: ");
        }
    }

    @ParameterizedTest
    @EnumSource(Era.class)
    void resourceNotFound(Era era) {
        try (TestClient client = era.open(server)) {
            Response response = read(client, "test://nonexistent-resource-for-conformance-testing");
            assertThat(response.isError()).as("no result with empty contents").isTrue();
            // sep-2164-error-code applies to 2026-07-28; 2025-11-25 keeps -32002
            assertThat(response.errorCode()).isEqualTo(era == Era.MODERN ? -32602 : -32002);
            assertThat(response.error().path("data").path("uri").asString(""))
                    .isEqualTo("test://nonexistent-resource-for-conformance-testing");
        }
    }

    @ParameterizedTest
    @EnumSource(Era.class)
    void promptsList(Era era) {
        try (TestClient client = era.open(server)) {
            JsonNode prompts = client.request("prompts/list", Json.object()).result().path("prompts");
            List<String> names = new ArrayList<>();
            for (JsonNode p : prompts) {
                names.add(p.path("name").asString(""));
                assertThat(p.path("description").asString("")).as("description of %s", p.path("name")).isNotBlank();
            }
            assertThat(names).containsExactlyElementsOf(ConformanceServer.PROMPTS);
        }
    }

    @ParameterizedTest
    @EnumSource(Era.class)
    void promptsGetSimple(Era era) {
        try (TestClient client = era.open(server)) {
            JsonNode result = client.request("prompts/get", json("{\"name\":\"test_simple_prompt\"}")).result();
            JsonNode messages = result.path("messages");
            assertThat(messages.size()).isPositive();
            for (JsonNode m : messages) {
                assertThat(m.has("role")).isTrue();
                assertThat(m.has("content")).isTrue();
            }
            assertThat(messages.get(0).path("content").path("text").asString(""))
                    .isEqualTo("This is a simple prompt for testing.");
            assertComplete(era, result);
        }
    }

    @ParameterizedTest
    @EnumSource(Era.class)
    void promptsGetWithArgs(Era era) {
        try (TestClient client = era.open(server)) {
            JsonNode result = client.request("prompts/get", json("""
                    {"name":"test_prompt_with_arguments","arguments":{"arg1":"testValue1","arg2":"testValue2"}}"""))
                    .result();
            String messages = result.path("messages").toString();
            assertThat(messages).contains("testValue1").contains("testValue2");
        }
    }

    @ParameterizedTest
    @EnumSource(Era.class)
    void promptsGetEmbeddedResource(Era era) {
        try (TestClient client = era.open(server)) {
            JsonNode result = client.request("prompts/get", json("""
                    {"name":"test_prompt_with_embedded_resource","arguments":{"resourceUri":"test://example-resource"}}"""))
                    .result();
            JsonNode resource = messageContent(result, "resource").path("resource");
            assertThat(resource.path("uri").asString("")).isEqualTo("test://example-resource");
            assertThat(resource.path("mimeType").asString("")).isEqualTo("text/plain");
            assertThat(resource.path("text").asString("")).isNotEmpty();
        }
    }

    @ParameterizedTest
    @EnumSource(Era.class)
    void promptsGetWithImage(Era era) throws Exception {
        try (TestClient client = era.open(server)) {
            JsonNode result = client.request("prompts/get", json("{\"name\":\"test_prompt_with_image\"}")).result();
            JsonNode image = messageContent(result, "image");
            assertThat(image.path("mimeType").asString("")).isEqualTo("image/png");
            assertPng(image.path("data").asString(""));
        }
    }

    @ParameterizedTest
    @EnumSource(Era.class)
    void jsonSchema202012(Era era) {
        try (TestClient client = era.open(server)) {
            JsonNode tools = client.request("tools/list", Json.object()).result().path("tools");
            JsonNode tool = null;
            for (JsonNode t : tools) {
                if (t.path("name").asString("").equals("json_schema_2020_12_tool")) {
                    tool = t;
                }
            }
            assertThat(tool).isNotNull();
            assertThat(tool.path("description").asString("")).isEqualTo("Tool with JSON Schema 2020-12 features");
            JsonNode schema = tool.path("inputSchema");
            // Preserved exactly: $schema, $defs (with $anchor), additionalProperties, allOf/anyOf, if/then/else.
            assertThat(schema).isEqualTo(ConformanceServer.jsonSchema202012());
            assertThat(schema.path("$schema").asString("")).isEqualTo("https://json-schema.org/draft/2020-12/schema");
            assertThat(schema.path("$defs").has("address")).isTrue();
            assertThat(schema.path("$defs").path("address").has("$anchor")).isTrue();
            assertThat(schema.path("additionalProperties").isBoolean()).isTrue();
            assertThat(schema.path("additionalProperties").asBoolean(true)).isFalse();
            assertThat(schema.path("allOf").get(0).path("anyOf").isArray()).isTrue();
            assertThat(schema.has("if") && schema.has("then") && schema.has("else")).isTrue();
            // And the schema is enforced: neither phone nor email is an error result.
            JsonNode call = client.callTool("json_schema_2020_12_tool", json("{\"name\":\"Ann\"}")).result();
            assertThat(call.path("isError").asBoolean(false)).isTrue();
            JsonNode ok = client.callTool("json_schema_2020_12_tool",
                    json("{\"name\":\"Ann\",\"contactMethod\":\"email\",\"email\":\"ann@example.com\"}")).result();
            assertThat(ok.has("isError")).isFalse();
        }
    }

    @ParameterizedTest
    @EnumSource(Era.class)
    void customHeaderTool(Era era) {
        try (TestClient client = era.open(server)) {
            JsonNode tools = client.request("tools/list", Json.object()).result().path("tools");
            JsonNode property = null;
            for (JsonNode t : tools) {
                if (t.path("name").asString("").equals("test_header_param")) {
                    property = t.path("inputSchema").path("properties").path("region");
                }
            }
            assertThat(property).isNotNull();
            assertThat(property.path("type").asString("")).isEqualTo("string");
            assertThat(property.path("x-mcp-header").asString("")).isEqualTo("Region");
            JsonNode result = client.callTool("test_header_param", json("{\"region\":\"Hello\"}")).result();
            assertThat(result.path("content").get(0).path("text").asString("")).isEqualTo("Region: Hello");
        }
    }

    // ==================================================================== legacy session (2025-11-25) only

    @Nested
    class LegacySession {

        @Test
        void serverInitialize() {
            try (TestClient client = TestClient.legacy(server, LEGACY)) {
                JsonNode result = client.initialize();
                assertThat(result.path("protocolVersion").asString("")).isEqualTo(LEGACY);
                assertThat(result.path("serverInfo").path("name").asString("")).isEqualTo("tern-conformance");
                assertThat(result.path("serverInfo").path("version").asString("")).isNotEmpty();
                JsonNode caps = result.path("capabilities");
                assertThat(caps.has("tools")).isTrue();
                assertThat(caps.path("resources").path("subscribe").asBoolean(false)).isTrue();
                assertThat(caps.has("prompts")).isTrue();
                assertThat(caps.has("logging")).isTrue();
                assertThat(caps.has("completions")).isTrue();
            }
        }

        @ParameterizedTest
        @ValueSource(strings = {"2025-06-18", "2025-03-26"})
        void olderRevisionsNegotiate(String version) {
            try (TestClient client = TestClient.legacy(server, version)) {
                assertThat(client.initialize().path("protocolVersion").asString("")).isEqualTo(version);
                assertThat(client.callTool("test_simple_text", null).result().path("content").size()).isPositive();
                assertThat(client.request("tools/list", Json.object()).result().path("tools").size())
                        .isEqualTo(ConformanceServer.TOOLS.size());
            }
        }

        @Test
        void loggingSetLevel() {
            try (TestClient client = Era.LEGACY.open(server)) {
                JsonNode result = client.request("logging/setLevel", json("{\"level\":\"info\"}")).result();
                assertThat(result.isObject()).isTrue();
                assertThat(result.size()).isZero();
            }
        }

        @Test
        void ping() {
            try (TestClient client = Era.LEGACY.open(server)) {
                JsonNode result = client.request("ping", null).result();
                assertThat(result.size()).isZero();
            }
        }

        @Test
        void toolsCallWithLogging() {
            try (TestClient client = Era.LEGACY.open(server)) {
                client.request("logging/setLevel", json("{\"level\":\"debug\"}")).result();
                RequestId id = client.send("tools/call", json("{\"name\":\"test_tool_with_logging\",\"arguments\":{}}"));
                assertThat(client.await(id).result().path("content").size()).isPositive();
                List<JsonNode> logs = before(client, id, "notifications/message");
                assertThat(logs).hasSizeGreaterThanOrEqualTo(3);
                assertThat(logs).extracting(n -> n.path("params").path("data").asString(""))
                        .containsExactly("Tool execution started", "Tool processing data", "Tool execution completed");
                assertThat(logs).allSatisfy(n -> assertThat(n.path("params").path("level").asString("")).isEqualTo("info"));
            }
        }

        @Test
        void logsRespectTheLevelTheClientSet() {
            try (TestClient client = Era.LEGACY.open(server)) {
                client.request("logging/setLevel", json("{\"level\":\"error\"}")).result();
                RequestId id = client.send("tools/call", json("{\"name\":\"test_tool_with_logging\",\"arguments\":{}}"));
                client.await(id).result();
                assertThat(client.notifications("notifications/message")).isEmpty();
            }
        }

        @Test
        void toolsCallSampling() {
            try (TestClient client = Era.LEGACY.open(server)) {
                client.onServerRequest(request -> json("""
                        {"role":"assistant","content":{"type":"text","text":"This is a test response from the client"},
                         "model":"test-model","stopReason":"endTurn"}"""));
                JsonNode result = client.callTool("test_sampling", json("{\"prompt\":\"Test prompt for sampling\"}")).result();
                JsonNode request = serverRequest(client, "sampling/createMessage");
                JsonNode params = request.path("params");
                assertThat(params.path("messages").get(0).path("role").asString("")).isEqualTo("user");
                assertThat(params.path("messages").get(0).path("content").path("text").asString(""))
                        .isEqualTo("Test prompt for sampling");
                assertThat(params.path("maxTokens").asInt()).isEqualTo(100);
                assertThat(result.path("content").size()).isPositive();
                assertThat(result.path("content").get(0).path("text").asString(""))
                        .isEqualTo("LLM response: This is a test response from the client");
            }
        }

        @Test
        void toolsCallElicitation() {
            try (TestClient client = Era.LEGACY.open(server)) {
                client.onServerRequest(request -> json("""
                        {"action":"accept","content":{"username":"testuser","email":"test@example.com"}}"""));
                JsonNode result = client.callTool("test_elicitation",
                        json("{\"message\":\"Please provide your information\"}")).result();
                JsonNode params = serverRequest(client, "elicitation/create").path("params");
                assertThat(params.path("message").asString("")).isEqualTo("Please provide your information");
                JsonNode schema = params.path("requestedSchema");
                assertThat(schema.path("type").asString("")).isEqualTo("object");
                assertThat(schema.path("properties").size()).isPositive();
                for (Map.Entry<String, JsonNode> p : schema.path("properties").properties()) {
                    assertThat(p.getValue().path("type").asString("")).as(p.getKey()).isEqualTo("string");
                }
                assertThat(strings(schema.path("required"))).containsExactly("username", "email");
                assertThat(result.path("content").size()).isPositive();
                assertThat(result.path("content").get(0).path("text").asString("")).contains("testuser");
            }
        }

        @Test
        void elicitationWithoutTheCapabilityIsAnError() {
            try (TestClient client = TestClient.legacy(server, LEGACY)) {
                client.initialize();
                Response response = client.callTool("test_elicitation", json("{\"message\":\"Hi\"}"));
                assertThat(response.isError()).isTrue();
                assertThat(client.received()).noneMatch(m -> m.has("method") && m.has("id"));
            }
        }

        @Test
        void elicitationSep1034Defaults() {
            try (TestClient client = Era.LEGACY.open(server)) {
                client.onServerRequest(request -> json("""
                        {"action":"accept","content":{"name":"Jane Smith","age":25,"score":88,"status":"inactive",
                         "verified":false}}"""));
                JsonNode result = client.callTool("test_elicitation_sep1034_defaults", Json.object()).result();
                JsonNode props = serverRequest(client, "elicitation/create").path("params").path("requestedSchema")
                        .path("properties");
                // elicitation-sep1034-string-default
                assertThat(props.path("name").path("type").asString("")).isEqualTo("string");
                assertThat(props.path("name").path("default").asString("")).isEqualTo("John Doe");
                // -integer-default: an integer, not 30.0
                assertThat(props.path("age").path("type").asString("")).isEqualTo("integer");
                assertThat(props.path("age").path("default").isIntegralNumber()).isTrue();
                assertThat(props.path("age").path("default").asInt()).isEqualTo(30);
                // -number-default
                assertThat(props.path("score").path("type").asString("")).isEqualTo("number");
                assertThat(props.path("score").path("default").asDouble()).isEqualTo(95.5);
                // -enum-default: the default is a member of the enum
                assertThat(props.path("status").path("type").asString("")).isEqualTo("string");
                assertThat(strings(props.path("status").path("enum"))).containsExactly("active", "inactive", "pending");
                assertThat(props.path("status").path("default").asString("")).isEqualTo("active");
                // -boolean-default
                assertThat(props.path("verified").path("type").asString("")).isEqualTo("boolean");
                assertThat(props.path("verified").path("default").isBoolean()).isTrue();
                assertThat(props.path("verified").path("default").asBoolean(false)).isTrue();
                assertThat(props.size()).isEqualTo(5);
                assertThat(result.path("content").get(0).path("text").asString("")).contains("Jane Smith");
            }
        }

        @Test
        void elicitationSep1330Enums() {
            try (TestClient client = Era.LEGACY.open(server)) {
                client.onServerRequest(request -> json("""
                        {"action":"accept","content":{"untitledSingle":"option1","titledSingle":"value1","legacyEnum":"opt1",
                         "untitledMulti":["option1","option2"],"titledMulti":["value1","value2"]}}"""));
                JsonNode result = client.callTool("test_elicitation_sep1330_enums", Json.object()).result();
                JsonNode props = serverRequest(client, "elicitation/create").path("params").path("requestedSchema")
                        .path("properties");
                // -untitled-single: enum, no oneOf, no enumNames
                JsonNode untitledSingle = props.path("untitledSingle");
                assertThat(untitledSingle.path("type").asString("")).isEqualTo("string");
                assertThat(strings(untitledSingle.path("enum"))).containsExactly("option1", "option2", "option3");
                assertThat(untitledSingle.has("oneOf") || untitledSingle.has("enumNames")).isFalse();
                // -titled-single: oneOf of {const, title} strings, no enum
                JsonNode titledSingle = props.path("titledSingle");
                assertThat(titledSingle.path("type").asString("")).isEqualTo("string");
                assertThat(titledSingle.has("enum")).isFalse();
                assertTitledOptions(titledSingle.path("oneOf"), "Option");
                // -legacy-enumnames: enum and enumNames of the same length
                JsonNode legacy = props.path("legacyEnum");
                assertThat(legacy.path("type").asString("")).isEqualTo("string");
                assertThat(strings(legacy.path("enum"))).containsExactly("opt1", "opt2", "opt3");
                assertThat(strings(legacy.path("enumNames"))).containsExactly("Option One", "Option Two", "Option Three");
                // -untitled-multi: array of string enum items, no items.anyOf
                JsonNode untitledMulti = props.path("untitledMulti");
                assertThat(untitledMulti.path("type").asString("")).isEqualTo("array");
                assertThat(untitledMulti.path("items").path("type").asString("")).isEqualTo("string");
                assertThat(strings(untitledMulti.path("items").path("enum"))).containsExactly("option1", "option2", "option3");
                assertThat(untitledMulti.path("items").has("anyOf")).isFalse();
                // -titled-multi: items.anyOf of {const, title}, no items.enum
                JsonNode titledMulti = props.path("titledMulti");
                assertThat(titledMulti.path("type").asString("")).isEqualTo("array");
                assertThat(titledMulti.path("items").has("enum")).isFalse();
                assertTitledOptions(titledMulti.path("items").path("anyOf"), "Choice");
                assertThat(result.path("content").get(0).path("text").asString("")).contains("action=accept");
            }
        }

        private static void assertTitledOptions(JsonNode options, String noun) {
            assertThat(options.isArray()).isTrue();
            assertThat(options.size()).isEqualTo(3);
            for (JsonNode o : options) {
                assertThat(o.path("const").isString()).isTrue();
                assertThat(o.path("title").isString()).isTrue();
            }
            assertThat(options.get(0).path("const").asString("")).isEqualTo("value1");
            assertThat(options.get(0).path("title").asString("")).isEqualTo("First " + noun);
        }

        @Test
        void resourcesSubscribeAndUnsubscribe() {
            try (TestClient client = Era.LEGACY.open(server)) {
                ObjectNode uri = json("{\"uri\":\"test://watched-resource\"}");
                assertThat(client.request("resources/subscribe", uri).result().size()).isZero();
                server.notifyResourceUpdated("test://watched-resource");
                JsonNode updated = client.awaitNotification("notifications/resources/updated");
                assertThat(updated.path("params").path("uri").asString("")).isEqualTo("test://watched-resource");
                assertThat(client.request("resources/unsubscribe", uri).result().size()).isZero();
            }
        }

        @Test
        void inputRequiredToolsAskTheClientDirectlyInASession() {
            try (TestClient client = TestClient.legacy(server, LEGACY)
                    .capabilities(json("{\"sampling\":{},\"elicitation\":{},\"roots\":{}}"))) {
                client.initialize();
                client.onServerRequest(request -> switch (request.path("method").asString("")) {
                    case "elicitation/create" -> json("{\"action\":\"accept\",\"content\":{\"name\":\"Alice\"}}");
                    case "sampling/createMessage" -> json("""
                            {"role":"assistant","content":{"type":"text","text":"Hello there!"},"model":"test-model",
                             "stopReason":"endTurn"}""");
                    default -> json("{\"roots\":[{\"uri\":\"file:///test/root\",\"name\":\"Test Root\"}]}");
                });
                JsonNode result = client.callTool("test_input_required_result_multiple_inputs", Json.object()).result();
                assertThat(result.has("resultType")).isFalse();
                assertThat(result.path("content").get(0).path("text").asString(""))
                        .isEqualTo("Name: Alice; greeting: Hello there!; roots: Test Root <file:///test/root>");
                assertThat(client.received()).filteredOn(m -> m.has("method") && m.has("id"))
                        .extracting(m -> m.path("method").asString(""))
                        .containsExactly("elicitation/create", "sampling/createMessage", "roots/list");
            }
        }
    }

    // ==================================================================== stateless (2026-07-28) only

    @Nested
    class Stateless {

        @Test
        void serverImplementsDiscover() {
            try (TestClient client = Era.MODERN.open(server)) {
                JsonNode result = client.request("server/discover", Json.object()).result();
                assertThat(strings(result.path("supportedVersions"))).contains(TestClient.MODERN);
                JsonNode caps = result.path("capabilities");
                assertThat(caps.has("tools")).isTrue();
                assertThat(caps.has("prompts")).isTrue();
                assertThat(caps.has("resources")).isTrue();
                JsonNode info = result.path("_meta").path("io.modelcontextprotocol/serverInfo");
                assertThat(info.path("name").asString("")).isEqualTo("tern-conformance");
                assertThat(info.path("version").asString("")).isNotEmpty();
                assertComplete(Era.MODERN, result);
            }
        }

        @Test
        void clientInfoIsOptional() {
            try (TestClient client = Era.MODERN.open(server)) {
                client.sendRaw("""
                        {"jsonrpc":"2.0","id":105,"method":"server/discover","params":{"_meta":{
                          "io.modelcontextprotocol/protocolVersion":"2026-07-28",
                          "io.modelcontextprotocol/clientCapabilities":{}}}}""");
                assertThat(client.await(RequestId.of(105)).result().has("supportedVersions")).isTrue();
            }
        }

        @Test
        void missingClientCapabilitiesIsInvalidParams() {
            try (TestClient client = Era.MODERN.open(server)) {
                client.sendRaw("""
                        {"jsonrpc":"2.0","id":104,"method":"server/discover","params":{"_meta":{
                          "io.modelcontextprotocol/protocolVersion":"2026-07-28",
                          "io.modelcontextprotocol/clientInfo":{"name":"conformance-client","version":"1.0.0"}}}}""");
                Response response = client.await(RequestId.of(104));
                assertThat(response.errorCode()).isEqualTo(-32602);
                assertThat(response.message().path("id").asLong()).isEqualTo(104);
            }
        }

        @Test
        void unsupportedVersionNamesTheSupportedOnes() {
            try (TestClient client = Era.MODERN.open(server)) {
                List<String> supported = strings(client.request("server/discover", Json.object()).result()
                        .path("supportedVersions"));
                Response response = client.request("server/discover",
                        json("{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"v999.0.0\"}}"));
                assertThat(response.errorCode()).isEqualTo(-32022);
                JsonNode data = response.error().path("data");
                assertThat(strings(data.path("supported"))).isNotEmpty().isSubsetOf(supported);
                assertThat(data.path("requested").asString("")).isEqualTo("v999.0.0");
            }
        }

        @ParameterizedTest
        @ValueSource(strings = {"initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe",
                "unknown/method"})
        void removedAndUnknownMethodsAreNotFound(String method) {
            try (TestClient client = Era.MODERN.open(server)) {
                ObjectNode params = Json.object();
                if (method.equals("initialize")) {
                    params = json("""
                            {"protocolVersion":"2026-07-28","capabilities":{},
                             "clientInfo":{"name":"conformance-client","version":"1.0.0"}}""");
                } else if (method.startsWith("resources/")) {
                    params.put("uri", "test://watched-resource");
                } else if (method.equals("logging/setLevel")) {
                    params.put("level", "debug");
                }
                RequestId id = RequestId.of(500);
                client.sendWithId(id, method, params);
                Response response = client.await(id);
                assertThat(response.errorCode()).isEqualTo(-32601);
                assertThat(response.message().path("id").asLong()).isEqualTo(500);
            }
        }

        @Test
        void serverRejectsUndeclaredCapability() {
            try (TestClient client = TestClient.modern(server).capabilities(Json.object())) {
                assertThat(client.request("tools/list", Json.object()).result().path("tools").toString())
                        .contains("test_missing_capability");
                Response response = client.callTool("test_missing_capability", Json.object());
                assertThat(response.errorCode()).isEqualTo(-32021);
                JsonNode required = response.error().path("data").path("requiredCapabilities");
                assertThat(required.isObject()).isTrue();
                assertThat(required.path("sampling").isObject()).isTrue();
            }
        }

        @Test
        void missingCapabilityToolRunsWhenSamplingIsDeclared() {
            try (TestClient client = TestClient.modern(server).capabilities(json("{\"sampling\":{}}"))) {
                JsonNode r1 = client.callTool("test_missing_capability", Json.object()).result();
                assertThat(r1.path("resultType").asString("")).isEqualTo("input_required");
                assertThat(firstRequest(r1).path("method").asString("")).isEqualTo("sampling/createMessage");
            }
        }

        @Test
        void noIndependentRequestsOnTheResponseStream() {
            try (TestClient client = TestClient.modern(server).capabilities(json("{\"elicitation\":{}}"))) {
                Response response = client.callTool("test_streaming_elicitation", Json.object());
                assertThat(response.isError()).isFalse();
                assertThat(response.result().path("resultType").asString("")).isEqualTo("input_required");
                assertThat(client.received()).noneMatch(m -> m.has("method") && !m.path("method").asString("")
                        .startsWith("notifications/"));
            }
        }

        @Test
        void noLogWithoutLogLevel() {
            try (TestClient client = Era.MODERN.open(server)) {
                Response response = client.callTool("test_logging_tool", Json.object());
                assertThat(response.result().path("content").size()).isPositive();
                assertThat(client.notifications("notifications/message")).isEmpty();
            }
        }

        @Test
        void logsWhenTheRequestSetsALogLevel() {
            try (TestClient client = Era.MODERN.open(server)) {
                ObjectNode params = json("{\"name\":\"test_logging_tool\",\"arguments\":{}}");
                params.putObject("_meta").put("io.modelcontextprotocol/logLevel", "info");
                RequestId id = client.send("tools/call", params);
                client.await(id).result();
                assertThat(before(client, id, "notifications/message")).hasSize(3);
                params.putObject("_meta").put("io.modelcontextprotocol/logLevel", "warning");
                RequestId quiet = client.send("tools/call", params);
                client.await(quiet).result();
                assertThat(client.notifications("notifications/message")).hasSize(3);
            }
        }

        @Test
        void subscriptionAckTagAndToolsListChanged() {
            try (TestClient client = Era.MODERN.open(server)) {
                RequestId listen = client.send("subscriptions/listen", json("{\"notifications\":{\"toolsListChanged\":true}}"));
                JsonNode ack = client.awaitNotification("notifications/subscriptions/acknowledged");
                assertThat(client.received().get(0)).isEqualTo(ack);
                assertThat(subscriptionId(ack)).isEqualTo(((RequestId.NumberId) listen).value());
                assertThat(ack.path("params").path("notifications").path("toolsListChanged").asBoolean(false)).isTrue();

                JsonNode trigger = client.callTool("test_trigger_tool_change", Json.object()).result();
                assertThat(trigger.path("isError").asBoolean(false)).isFalse();
                JsonNode changed = client.awaitNotification("notifications/tools/list_changed");
                assertThat(subscriptionId(changed)).isEqualTo(((RequestId.NumberId) listen).value());

                // The change is real, appended after the fixtures: tools[0] stays argument-free.
                JsonNode tools = client.request("tools/list", Json.object()).result().path("tools");
                assertThat(tools.get(0).path("name").asString("")).isEqualTo("test_simple_text");
                assertThat(tools.get(tools.size() - 1).path("name").asString("")).isEqualTo(ConformanceServer.DYNAMIC_TOOL);
                assertThat(tools.get(tools.size() - 1).path("description").asString("")).contains("revision 1");
                assertThat(tools.size()).isEqualTo(ConformanceServer.TOOLS.size() + 1);
                client.callTool("test_trigger_tool_change", Json.object()).result();
                JsonNode again = client.request("tools/list", Json.object()).result().path("tools");
                assertThat(again.size()).isEqualTo(tools.size());
                assertThat(again.get(again.size() - 1).path("description").asString("")).contains("revision 2");
                assertThat(client.callTool(ConformanceServer.DYNAMIC_TOOL, Json.object()).result()
                        .path("content").get(0).path("text").asString("")).isEqualTo("Dynamic tool, revision 2");
            }
        }

        @Test
        void promptsListChangedAndTheFilterIsHonoured() {
            try (TestClient client = Era.MODERN.open(server)) {
                RequestId listen = client.send("subscriptions/listen",
                        json("{\"notifications\":{\"promptsListChanged\":true}}"));
                client.awaitNotification("notifications/subscriptions/acknowledged");
                client.callTool("test_trigger_tool_change", Json.object()).result();
                client.callTool("test_trigger_prompt_change", Json.object()).result();
                JsonNode changed = client.awaitNotification("notifications/prompts/list_changed");
                assertThat(subscriptionId(changed)).isEqualTo(((RequestId.NumberId) listen).value());
                // Tool changes are flushed no later than the prompt change that followed them.
                assertThat(client.notifications("notifications/tools/list_changed")).isEmpty();
                JsonNode prompts = client.request("prompts/list", Json.object()).result().path("prompts");
                JsonNode last = prompts.get(prompts.size() - 1);
                assertThat(last.path("name").asString("")).isEqualTo(ConformanceServer.DYNAMIC_PROMPT);
                assertThat(last.path("description").asString("")).isNotBlank();
            }
        }

        @Test
        void cachingHints() {
            try (TestClient client = Era.MODERN.open(server)) {
                JsonNode resources = null;
                for (String method : List.of("tools/list", "prompts/list", "resources/list", "resources/templates/list")) {
                    JsonNode result = client.request(method, Json.object()).result();
                    assertCachingHints(method, result);
                    if (method.equals("resources/list")) {
                        resources = result.path("resources");
                    }
                }
                JsonNode read = read(client, resources.get(0).path("uri").asString("")).result();
                assertCachingHints("resources/read", read);
            }
        }

        private static void assertCachingHints(String method, JsonNode result) {
            assertThat(result.path("ttlMs").isIntegralNumber()).as("ttlMs of %s", method).isTrue();
            assertThat(result.path("ttlMs").asLong()).as("ttlMs of %s", method).isNotNegative();
            assertThat(result.path("cacheScope").asString("")).as("cacheScope of %s", method).isIn("public", "private");
            assertThat(result.path("resultType").asString("")).isEqualTo("complete");
        }

        // ---------------------------------------------------------------- input-required-result-*

        @Test
        void basicElicitation() {
            try (TestClient client = Era.MODERN.open(server)) {
                JsonNode r1 = callTool(client, "test_input_required_result_elicitation");
                assertInputRequired(r1);
                assertThat(keys(r1.path("inputRequests"))).containsExactly("user_name");
                assertThat(r1.path("inputRequests")).isEqualTo(json("""
                        {"user_name":{"method":"elicitation/create","params":{"message":"What is your name?",
                          "requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}}}"""));
                ObjectNode responses = Json.object();
                responses.set("user_name", accept("{\"name\":\"Alice\"}"));
                JsonNode r2 = answerAll(client, "tools/call", "test_input_required_result_elicitation", r1, responses);
                assertComplete(Era.MODERN, r2);
                assertThat(r2.path("content").get(0).path("text").asString("")).isEqualTo("Hello, Alice!");
            }
        }

        @Test
        void basicSampling() {
            try (TestClient client = Era.MODERN.open(server)) {
                JsonNode r1 = callTool(client, "test_input_required_result_sampling");
                assertInputRequired(r1);
                assertThat(keys(r1.path("inputRequests"))).containsExactly("capital_question");
                assertThat(r1.path("inputRequests")).isEqualTo(json("""
                        {"capital_question":{"method":"sampling/createMessage","params":{
                          "messages":[{"role":"user","content":{"type":"text","text":"What is the capital of France?"}}],
                          "maxTokens":100}}}"""));
                JsonNode r2 = answerFirst(client, "tools/call", "test_input_required_result_sampling", r1, json("""
                        {"role":"assistant","content":{"type":"text","text":"The capital of France is Paris."},
                         "model":"test-model","stopReason":"endTurn"}"""));
                assertComplete(Era.MODERN, r2);
                assertThat(r2.path("content").get(0).path("text").asString(""))
                        .isEqualTo("The model answered: The capital of France is Paris.");
            }
        }

        @Test
        void basicListRoots() {
            try (TestClient client = Era.MODERN.open(server)) {
                JsonNode r1 = callTool(client, "test_input_required_result_list_roots");
                assertInputRequired(r1);
                assertThat(r1.path("inputRequests")).isEqualTo(json("{\"client_roots\":{\"method\":\"roots/list\",\"params\":{}}}"));
                JsonNode r2 = answerFirst(client, "tools/call", "test_input_required_result_list_roots", r1,
                        json("{\"roots\":[{\"uri\":\"file:///test/root\",\"name\":\"Test Root\"}]}"));
                assertComplete(Era.MODERN, r2);
                assertThat(r2.path("content").get(0).path("text").asString(""))
                        .isEqualTo("Client roots: Test Root <file:///test/root>");
            }
        }

        @Test
        void requestState() {
            try (TestClient client = Era.MODERN.open(server)) {
                JsonNode r1 = callTool(client, "test_input_required_result_request_state");
                assertInputRequired(r1);
                assertThat(r1.path("requestState").isString()).isTrue();
                assertThat(r1.path("requestState").asString("")).isNotEmpty();
                assertThat(r1.path("inputRequests")).isEqualTo(CONFIRM_REQUEST);
                JsonNode r2 = answerFirst(client, "tools/call", "test_input_required_result_request_state", r1,
                        accept("{\"ok\":true}"));
                assertComplete(Era.MODERN, r2);
                assertThat(r2.path("content").get(0).path("text").asString("")).isEqualTo("state-ok: confirmed=true");
            }
        }

        @Test
        void multipleInputRequestsComeInOneResult() {
            try (TestClient client = Era.MODERN.open(server)) {
                String tool = "test_input_required_result_multiple_inputs";
                JsonNode r1 = callTool(client, tool);
                assertInputRequired(r1);
                assertThat(r1.path("requestState").asString("")).isNotEmpty();
                JsonNode requests = r1.path("inputRequests");
                assertThat(keys(requests)).containsExactly("user_name", "greeting", "client_roots");
                assertThat(requests).isEqualTo(json("""
                        {"user_name":{"method":"elicitation/create","params":{"message":"What is your name?",
                           "requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}},
                         "greeting":{"method":"sampling/createMessage","params":{
                           "messages":[{"role":"user","content":{"type":"text","text":"Generate a greeting"}}],"maxTokens":50}},
                         "client_roots":{"method":"roots/list","params":{}}}"""));
                // The suite answers every key by its method, in one retry.
                ObjectNode answers = Json.object();
                for (Map.Entry<String, JsonNode> e : requests.properties()) {
                    answers.set(e.getKey(), switch (e.getValue().path("method").asString("")) {
                        case "elicitation/create" -> accept("{\"name\":\"Alice\"}");
                        case "sampling/createMessage" -> json("""
                                {"role":"assistant","content":{"type":"text","text":"Hello there!"},"model":"test-model",
                                 "stopReason":"endTurn"}""");
                        default -> json("{\"roots\":[{\"uri\":\"file:///test/root\",\"name\":\"Test Root\"}]}");
                    });
                }
                JsonNode r2 = answerAll(client, "tools/call", tool, r1, answers);
                assertComplete(Era.MODERN, r2);
                assertThat(r2.path("content").get(0).path("text").asString(""))
                        .isEqualTo("Name: Alice; greeting: Hello there!; roots: Test Root <file:///test/root>");
            }
        }

        @Test
        void partialAnswersAskOnlyForWhatIsStillMissing() {
            try (TestClient client = Era.MODERN.open(server)) {
                String tool = "test_input_required_result_multiple_inputs";
                JsonNode r1 = callTool(client, tool);
                ObjectNode some = Json.object();
                some.set("user_name", accept("{\"name\":\"Alice\"}"));
                JsonNode r2 = answerAll(client, "tools/call", tool, r1, some);
                assertInputRequired(r2);
                assertThat(keys(r2.path("inputRequests"))).containsExactly("greeting", "client_roots");
                ObjectNode rest = Json.object();
                rest.set("greeting", json("""
                        {"role":"assistant","content":{"type":"text","text":"Hi"},"model":"test-model","stopReason":"endTurn"}"""));
                rest.set("client_roots", json("{\"roots\":[]}"));
                JsonNode r3 = answerAll(client, "tools/call", tool, r2, rest);
                assertComplete(Era.MODERN, r3);
                assertThat(r3.path("content").get(0).path("text").asString(""))
                        .isEqualTo("Name: Alice; greeting: Hi; roots: (none)");
            }
        }

        @Test
        void multiRound() {
            try (TestClient client = Era.MODERN.open(server)) {
                String tool = "test_input_required_result_multi_round";
                JsonNode r1 = callTool(client, tool);
                assertInputRequired(r1);
                assertThat(r1.path("requestState").asString("")).isNotEmpty();
                assertThat(r1.path("inputRequests")).isEqualTo(json("""
                        {"step1":{"method":"elicitation/create","params":{"message":"Step 1: What is your name?",
                          "requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}}}"""));
                JsonNode r2 = answerFirst(client, "tools/call", tool, r1, accept("{\"name\":\"Alice\"}"));
                assertInputRequired(r2);
                assertThat(r2.path("requestState").asString("")).isNotEmpty().isNotEqualTo(r1.path("requestState").asString(""));
                assertThat(r2.path("inputRequests")).isEqualTo(json("""
                        {"step2":{"method":"elicitation/create","params":{"message":"Step 2: What is your favorite color?",
                          "requestedSchema":{"type":"object","properties":{"color":{"type":"string"}},"required":["color"]}}}}"""));
                JsonNode r3 = answerFirst(client, "tools/call", tool, r2, accept("{\"color\":\"blue\"}"));
                assertComplete(Era.MODERN, r3);
                assertThat(r3.path("content").get(0).path("text").asString(""))
                        .isEqualTo("Hello, Alice! Your favorite color is blue.");
            }
        }

        @Test
        void missingInputResponseIsRequestedAgain() {
            try (TestClient client = Era.MODERN.open(server)) {
                Response response = client.request("tools/call", json("""
                        {"name":"test_input_required_result_elicitation","arguments":{},
                         "inputResponses":{"wrong_key":{"action":"accept","content":{"data":"wrong"}}}}"""));
                assertThat(response.isError()).isFalse();
                assertInputRequired(response.result());
                assertThat(keys(response.result().path("inputRequests"))).containsExactly("user_name");
            }
        }

        @Test
        void nonToolRequest() {
            try (TestClient client = Era.MODERN.open(server)) {
                JsonNode r1 = client.request("prompts/get", json("{\"name\":\"test_input_required_result_prompt\"}")).result();
                assertInputRequired(r1);
                assertThat(r1.path("inputRequests")).isEqualTo(json("""
                        {"user_context":{"method":"elicitation/create","params":{"message":"What context should the prompt use?",
                          "requestedSchema":{"type":"object","properties":{"context":{"type":"string"}},"required":["context"]}}}}"""));
                JsonNode r2 = answerFirst(client, "prompts/get", "test_input_required_result_prompt", r1,
                        accept("{\"context\":\"test context\"}"));
                assertComplete(Era.MODERN, r2);
                assertThat(r2.path("messages").isArray()).isTrue();
                assertThat(r2.path("messages").toString()).contains("test context");
            }
        }

        @Test
        void resultTypeIsIncluded() {
            try (TestClient client = Era.MODERN.open(server)) {
                JsonNode r1 = callTool(client, "test_input_required_result_elicitation");
                assertThat(r1.has("resultType")).isTrue();
                assertThat(r1.path("resultType").asString("")).isEqualTo("input_required");
            }
        }

        @Test
        void notOnUnsupportedRequests() {
            try (TestClient client = Era.MODERN.open(server)) {
                for (String method : List.of("tools/list", "prompts/list")) {
                    assertThat(client.request(method, Json.object()).result().path("resultType").asString(""))
                            .as(method).isEqualTo("complete");
                }
            }
        }

        @Test
        void tamperedStateIsRejected() {
            try (TestClient client = Era.MODERN.open(server)) {
                JsonNode r1 = callTool(client, "test_input_required_result_tampered_state");
                assertInputRequired(r1);
                assertThat(r1.path("inputRequests")).isEqualTo(CONFIRM_REQUEST);
                assertThat(r1.path("requestState").asString("")).isNotEmpty();
                ObjectNode params = json("{\"name\":\"test_input_required_result_tampered_state\",\"arguments\":{}}");
                params.putObject("inputResponses").set("confirm", accept("{\"ok\":true}"));
                params.put("requestState", r1.path("requestState").asString("") + "-TAMPERED");
                Response response = client.request("tools/call", params);
                assertThat(response.isError()).isTrue();
                assertThat(response.errorCode()).isEqualTo(-32602);
                // The untampered state is accepted.
                JsonNode r2 = answerFirst(client, "tools/call", "test_input_required_result_tampered_state", r1,
                        accept("{\"ok\":true}"));
                assertThat(r2.path("content").get(0).path("text").asString("")).isEqualTo("state-ok: confirmed=true");
            }
        }

        @Test
        void respectsClientCapabilities() {
            try (TestClient client = Era.MODERN.open(server)) {
                ObjectNode params = json("{\"name\":\"test_input_required_result_capabilities\",\"arguments\":{}}");
                params.putObject("_meta").set("io.modelcontextprotocol/clientCapabilities", json("{\"sampling\":{}}"));
                JsonNode r1 = client.request("tools/call", params).result();
                assertInputRequired(r1);
                assertThat(keys(r1.path("inputRequests"))).containsExactly("sample_input");
                for (Map.Entry<String, JsonNode> e : r1.path("inputRequests").properties()) {
                    assertThat(e.getValue().path("method").asString("")).isNotEqualTo("elicitation/create");
                }
                assertThat(firstRequest(r1).path("method").asString("")).isEqualTo("sampling/createMessage");
            }
        }

        @Test
        void capabilitiesToolAsksForEverythingDeclaredAtOnce() {
            try (TestClient client = Era.MODERN.open(server)) {
                String tool = "test_input_required_result_capabilities";
                JsonNode r1 = callTool(client, tool);
                assertThat(keys(r1.path("inputRequests"))).containsExactly("elicit_input", "sample_input", "client_roots");
                ObjectNode answers = Json.object();
                answers.set("elicit_input", accept("{\"value\":\"v\"}"));
                answers.set("sample_input", json("""
                        {"role":"assistant","content":{"type":"text","text":"s"},"model":"test-model","stopReason":"endTurn"}"""));
                answers.set("client_roots", json("{\"roots\":[]}"));
                JsonNode r2 = answerAll(client, "tools/call", tool, r1, answers);
                assertComplete(Era.MODERN, r2);
                assertThat(r2.path("content").get(0).path("text").asString(""))
                        .isEqualTo("capabilities-ok: value=v sample=s roots=(none)");
            }
        }

        @Test
        void capabilitiesToolWithNothingDeclaredCompletes() {
            try (TestClient client = TestClient.modern(server).capabilities(Json.object())) {
                JsonNode result = callTool(client, "test_input_required_result_capabilities");
                assertComplete(Era.MODERN, result);
                assertThat(result.path("content").get(0).path("text").asString("")).isEqualTo("No supported capabilities declared");
            }
        }

        @Test
        void ignoresUnexpectedInputResponses() {
            try (TestClient client = Era.MODERN.open(server)) {
                // Exactly what the suite sends: the right key plus two unknown ones, and no requestState.
                JsonNode result = client.request("tools/call", json("""
                        {"name":"test_input_required_result_elicitation","arguments":{},"inputResponses":{
                          "user_name":{"action":"accept","content":{"name":"Alice"}},
                          "unknown_extra_key":{"action":"accept","content":{"foo":"bar"}},
                          "another_unexpected":{"action":"accept","content":{"baz":123}}}}""")).result();
                assertComplete(Era.MODERN, result);
                assertThat(result.path("content").get(0).path("text").asString("")).isEqualTo("Hello, Alice!");
            }
        }

        @ParameterizedTest
        @ValueSource(strings = {"{\"user_name\":12345}", "null", "[]", "\"x\""})
        void invalidInputResponsesAreNotAccepted(String inputResponses) {
            try (TestClient client = Era.MODERN.open(server)) {
                ObjectNode params = json("{\"name\":\"test_input_required_result_elicitation\",\"arguments\":{}}");
                params.set("inputResponses", Json.mapper().readTree(inputResponses));
                Response response = client.request("tools/call", params);
                if (!response.isError()) {
                    assertInputRequired(response.result());
                } else {
                    assertThat(response.errorCode()).isEqualTo(-32602);
                }
            }
        }

        @Test
        void stateFromAnotherToolIsRejected() {
            try (TestClient client = Era.MODERN.open(server)) {
                JsonNode r1 = callTool(client, "test_input_required_result_request_state");
                ObjectNode params = json("{\"name\":\"test_input_required_result_tampered_state\",\"arguments\":{}}");
                params.putObject("inputResponses").set(firstKey(r1), accept("{\"ok\":true}"));
                params.put("requestState", r1.path("requestState").asString(""));
                assertThat(client.request("tools/call", params).errorCode()).isEqualTo(-32602);
            }
        }

        private static long subscriptionId(JsonNode notification) {
            return notification.path("params").path("_meta").path("io.modelcontextprotocol/subscriptionId").asLong(-1);
        }
    }

    // ==================================================================== tasks, 2026-07-28 tasks extension

    @Nested
    class TasksExtension {

        /** What the suite's tasks scenarios declare. */
        private TestClient open() {
            return TestClient.modern(server).capabilities(json("""
                    {"elicitation":{},"sampling":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}"""));
        }

        @Test
        void extensionIsAdvertisedInDiscover() {
            try (TestClient client = open()) {
                JsonNode caps = client.request("server/discover", Json.object()).result().path("capabilities");
                assertThat(caps.path("extensions").path(TASKS_EXTENSION).isObject()).isTrue();
                assertThat(caps.has("tasks")).as("no v1 capabilities.tasks slot").isFalse();
            }
        }

        @Test
        void toolsListHasTheTaskFixturesWithoutExecution() {
            try (TestClient client = open()) {
                JsonNode tools = client.request("tools/list", Json.object()).result().path("tools");
                List<String> names = new ArrayList<>();
                for (JsonNode t : tools) {
                    names.add(t.path("name").asString(""));
                    assertThat(t.has("execution")).as("execution of %s", t.path("name")).isFalse();
                }
                assertThat(names).startsWith("test_simple_text")
                        .contains("greet", "slow_compute", "failing_job", "protocol_error_job", "confirm_delete", "multi_input",
                                "test_tool_with_task");
            }
        }

        @Test
        void taskMethodsNeedTheExtension() {
            try (TestClient client = TestClient.modern(server).capabilities(Json.object())) {
                for (String method : List.of("tasks/get", "tasks/update", "tasks/cancel")) {
                    ObjectNode params = json("{\"taskId\":\"gate-test\"}");
                    if (method.equals("tasks/update")) {
                        params.putObject("inputResponses");
                    }
                    assertThat(client.request(method, params).errorCode()).as(method).isEqualTo(-32021);
                }
            }
        }

        @Test
        void requiredTaskToolWithoutTheExtensionIsMissingCapability() {
            // tasks-required-task-error: failing_job, no capabilities at all
            try (TestClient client = TestClient.modern(server).capabilities(Json.object())) {
                Response response = client.callTool("failing_job", Json.object());
                assertThat(response.errorCode()).isEqualTo(-32021);
                assertThat(response.error().path("data").path("requiredCapabilities").path("extensions")
                        .path(TASKS_EXTENSION).isObject()).isTrue();
            }
        }

        @Test
        void slowComputeWithoutTheExtension() {
            // tasks-capability-negotiation wants a synchronous result here; a "required" tool can only refuse.
            try (TestClient client = TestClient.modern(server).capabilities(Json.object())) {
                Response response = client.callTool("slow_compute", json("{\"seconds\":0,\"label\":\"capability-no-ext\"}"));
                if (ConformanceServer.SLOW_COMPUTE_TASK_SUPPORT == TaskSupport.REQUIRED) {
                    assertThat(response.errorCode()).isEqualTo(-32021);
                } else {
                    JsonNode result = response.result();
                    assertThat(result.path("resultType").asString("")).isEqualTo("complete");
                    assertThat(result.has("taskId")).isFalse();
                    assertThat(result.path("content").get(0).path("text").asString("")).isEqualTo("Computed capability-no-ext after 0 s");
                }
            }
        }

        @Test
        void perRequestOptInCreatesATask() {
            // tasks-per-request-meta-opt-in: the extension only in this request's _meta
            try (TestClient client = TestClient.modern(server).capabilities(Json.object())) {
                ObjectNode params = json("{\"name\":\"slow_compute\",\"arguments\":{\"seconds\":60,\"label\":\"capability-meta-opt\"}}");
                params.putObject("_meta").set("io.modelcontextprotocol/clientCapabilities",
                        json("{\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}}"));
                JsonNode created = client.request("tools/call", params).result();
                assertCreateTaskResult(created);
                try (TestClient withExtension = open()) {
                    assertThat(withExtension.request("tasks/cancel", taskParams(created)).result().path("resultType")
                            .asString("")).isEqualTo("complete");
                }
            }
        }

        @Test
        void syncToolAnswersAtOnce() {
            try (TestClient client = open()) {
                JsonNode result = client.callTool("greet", json("{\"name\":\"World\"}")).result();
                assertThat(result.path("resultType").asString("")).isEqualTo("complete");
                assertThat(result.has("taskId")).isFalse();
                assertThat(result.path("content").get(0).path("text").asString("")).isEqualTo("Hello, World!");
            }
        }

        @Test
        void legacyTaskParamNeverMakesASyncToolATask() {
            try (TestClient client = open()) {
                JsonNode result = client.request("tools/call", json("""
                        {"name":"greet","arguments":{"name":"legacy-hint"},"task":{"ttl":60000,"pollInterval":100}}""")).result();
                assertThat(result.path("resultType").asString("")).isEqualTo("complete");
                assertThat(result.has("taskId")).isFalse();
                assertThat(result.path("content").get(0).path("text").asString("")).isEqualTo("Hello, legacy-hint!");
            }
        }

        @Test
        void lifecycleOfACompletedTask() throws InterruptedException {
            try (TestClient client = open()) {
                JsonNode created = client.callTool("slow_compute", json("{\"seconds\":0,\"label\":\"lifecycle\"}")).result();
                assertCreateTaskResult(created);
                String taskId = created.path("taskId").asString("");
                // Durable create: tasks/get straight after must resolve.
                JsonNode got = client.request("tasks/get", taskParams(created)).result();
                assertThat(got.path("taskId").asString("")).isEqualTo(taskId);
                assertThat(got.path("status").asString("")).isIn("working", "completed");
                assertThat(got.path("resultType").asString("")).isEqualTo("complete");
                assertThat(got.has("requestState")).isFalse();

                JsonNode done = awaitTerminal(client, taskId);
                assertThat(done.path("status").asString("")).isEqualTo("completed");
                assertThat(done.path("resultType").asString("")).isEqualTo("complete");
                assertThat(done.has("error")).isFalse();
                assertThat(done.has("requestState")).isFalse();
                JsonNode result = done.path("result");
                assertThat(result.path("content").get(0).path("text").asString("")).isEqualTo("Computed lifecycle after 0 s");
                assertThat(result.path("_meta").has("io.modelcontextprotocol/related-task")).isFalse();
                // Still readable later (well within ttlMs), and cancelling a finished task is an empty ack.
                assertThat(client.request("tasks/get", taskParams(created)).result().path("status").asString(""))
                        .isEqualTo("completed");
                assertEmptyAck(client.request("tasks/cancel", taskParams(created)).result());
                assertThat(client.request("tasks/get", taskParams(created)).result().path("status").asString(""))
                        .isEqualTo("completed");
            }
        }

        @Test
        void workingTaskIsCancelled() throws InterruptedException {
            try (TestClient client = open()) {
                JsonNode created = client.callTool("slow_compute", json("{\"seconds\":60,\"label\":\"lifecycle-cancel\"}")).result();
                assertCreateTaskResult(created);
                assertThat(created.path("status").asString("")).isEqualTo("working");
                JsonNode working = client.request("tasks/get", taskParams(created)).result();
                assertThat(working.path("status").asString("")).isEqualTo("working");
                assertThat(working.has("result") || working.has("error") || working.has("inputRequests")).isFalse();
                assertEmptyAck(client.request("tasks/cancel", taskParams(created)).result());
                JsonNode after = awaitTerminal(client, created.path("taskId").asString(""));
                assertThat(after.path("status").asString("")).isEqualTo("cancelled");
                assertThat(after.has("result")).isFalse();
                // Idempotent on a terminal task.
                assertEmptyAck(client.request("tasks/cancel", taskParams(created)).result());
            }
        }

        @Test
        void toolErrorCompletesWithIsError() throws InterruptedException {
            try (TestClient client = open()) {
                JsonNode created = client.callTool("failing_job", Json.object()).result();
                assertCreateTaskResult(created);
                JsonNode done = awaitTerminal(client, created.path("taskId").asString(""));
                assertThat(done.path("status").asString("")).isEqualTo("completed");
                assertThat(done.path("result").path("isError").asBoolean(false)).isTrue();
                assertThat(done.path("result").path("content").get(0).path("text").asString(""))
                        .isEqualTo(ConformanceServer.FAILING_JOB_TEXT);
                assertThat(done.has("error")).isFalse();
            }
        }

        @Test
        void protocolErrorFailsTheTask() throws InterruptedException {
            try (TestClient client = open()) {
                JsonNode created = client.callTool("protocol_error_job", Json.object()).result();
                assertCreateTaskResult(created);
                JsonNode done = awaitTerminal(client, created.path("taskId").asString(""));
                assertThat(done.path("status").asString("")).isEqualTo("failed");
                assertThat(done.path("error").path("code").isIntegralNumber()).isTrue();
                assertThat(done.path("error").path("code").asInt()).isEqualTo(-32603);
                assertThat(done.path("error").path("message").asString("")).isEqualTo(ConformanceServer.PROTOCOL_ERROR_TEXT);
                assertThat(done.has("result")).isFalse();
            }
        }

        @Test
        void removedMethodsAndUnknownTasks() {
            try (TestClient client = open()) {
                assertThat(client.request("tasks/result", json("{\"taskId\":\"tasks-conformance-isolation-probe\"}")).errorCode())
                        .isEqualTo(-32601);
                assertThat(client.request("tasks/list", Json.object()).errorCode()).isEqualTo(-32601);
                assertThat(client.request("tasks/get", json("{\"taskId\":\"tasks-conformance-nonexistent-12345\"}")).errorCode())
                        .isEqualTo(-32602);
            }
        }

        @Test
        void confirmDeleteParksOnOneElicitationAndResumesThroughTasksUpdate() throws InterruptedException {
            try (TestClient client = open()) {
                JsonNode created = client.callTool("confirm_delete", json("{\"filename\":\"mrtr-resume.txt\"}")).result();
                assertCreateTaskResult(created);
                String taskId = created.path("taskId").asString("");
                JsonNode parked = awaitStatus(client, taskId, "input_required");
                assertThat(parked.path("resultType").asString("")).isEqualTo("complete");
                assertThat(parked.has("requestState")).isFalse();
                assertThat(parked.path("inputRequests")).isEqualTo(json("""
                        {"confirm":{"method":"elicitation/create","params":{"message":"Delete mrtr-resume.txt?",
                          "requestedSchema":{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}}}}"""));
                // An unknown key is acknowledged and changes nothing.
                ObjectNode unknown = taskParams(created);
                unknown.putObject("inputResponses").putObject("unknown-key").put("ignored", true);
                assertEmptyAck(client.request("tasks/update", unknown).result());
                assertThat(client.request("tasks/get", taskParams(created)).result().path("status").asString(""))
                        .isEqualTo("input_required");

                ObjectNode update = taskParams(created);
                update.putObject("inputResponses").set("confirm", accept("{\"confirm\":true}"));
                assertEmptyAck(client.request("tasks/update", update).result());
                JsonNode done = awaitTerminal(client, taskId);
                assertThat(done.path("status").asString("")).isEqualTo("completed");
                assertThat(done.path("result").path("content").get(0).path("text").asString(""))
                        .isEqualTo("Deleted mrtr-resume.txt");
            }
        }

        @Test
        void multiInputAnswersArePartialAndAnsweredKeysGoAway() throws InterruptedException {
            // The suite wants both keys pending at once; answering one key at a time, as its partial-fulfilment
            // check does, must remove exactly the answered key and end with both answers.
            try (TestClient client = open()) {
                JsonNode created = client.callTool("multi_input", Json.object()).result();
                assertCreateTaskResult(created);
                String taskId = created.path("taskId").asString("");
                Set<String> asked = new LinkedHashSet<>();
                JsonNode task = awaitStatus(client, taskId, "input_required");
                for (int round = 0; round < 3 && task.path("status").asString("").equals("input_required"); round++) {
                    String key = firstKey(task);
                    asked.add(key);
                    assertThat(task.path("inputRequests").path(key).path("method").asString("")).isEqualTo("elicitation/create");
                    ObjectNode update = taskParams(created);
                    update.putObject("inputResponses").set(key, accept("{\"name\":\"partial-" + asked.size() + "\",\"confirm\":true}"));
                    assertEmptyAck(client.request("tasks/update", update).result());
                    task = awaitChange(client, taskId, key);
                    assertThat(keys(task.path("inputRequests"))).doesNotContain(key);
                }
                assertThat(asked).containsExactly("name", "confirm");
                JsonNode done = awaitTerminal(client, taskId);
                assertThat(done.path("status").asString("")).isEqualTo("completed");
                assertThat(done.path("result").path("content").get(0).path("text").asString(""))
                        .isEqualTo("Name: partial-1; confirmed: true");
            }
        }

        @Test
        void toolWithTaskAsksTheNameByInputRequiredAndOnlyThenCreatesTheTask() throws InterruptedException {
            // tasks-mrtr-composition: round 1 is input_required without a task; the retry with the answer is
            // answered with the created task, whose result carries the name.
            try (TestClient client = open()) {
                String tool = "test_tool_with_task";
                JsonNode r1 = callTool(client, tool);
                assertThat(r1.path("resultType").asString("")).isEqualTo("input_required");
                assertThat(r1.has("taskId")).isFalse();
                assertThat(keys(r1.path("inputRequests"))).containsExactly("user_name");
                JsonNode created = answerFirst(client, "tools/call", tool, r1, accept("{\"name\":\"Alice\"}"));
                assertCreateTaskResult(created);
                String taskId = created.path("taskId").asString("");
                JsonNode done = awaitTerminal(client, taskId);
                assertThat(done.path("status").asString("")).isEqualTo("completed");
                assertThat(done.path("result").path("content").get(0).path("text").asString(""))
                        .isEqualTo("Hello, Alice! (from a task)");
            }
        }

        private static void assertCreateTaskResult(JsonNode created) {
            assertThat(created.path("resultType").asString("")).isEqualTo("task");
            assertThat(created.path("taskId").asString("")).isNotEmpty();
            assertThat(created.path("status").asString("")).isNotEmpty();
            assertThat(created.path("createdAt").asString("")).matches(ISO_8601);
            assertThat(created.path("lastUpdatedAt").asString("")).matches(ISO_8601);
            assertThat(created.path("ttlMs").isIntegralNumber()).isTrue();
            assertThat(created.path("ttlMs").asLong()).isPositive();
            assertThat(created.path("pollIntervalMs").isIntegralNumber()).isTrue();
            assertThat(created.path("pollIntervalMs").asLong()).isPositive();
            for (String absent : List.of("task", "result", "error", "inputRequests", "requestState", "ttl", "pollInterval")) {
                assertThat(created.has(absent)).as("CreateTaskResult has no %s", absent).isFalse();
            }
        }

        private static void assertEmptyAck(JsonNode ack) {
            assertThat(ack.path("resultType").asString("")).isEqualTo("complete");
            for (String absent : List.of("taskId", "status", "result", "error", "inputRequests")) {
                assertThat(ack.has(absent)).as("ack has no %s", absent).isFalse();
            }
        }

        private static ObjectNode taskParams(JsonNode created) {
            ObjectNode params = Json.object();
            params.put("taskId", created.path("taskId").asString(""));
            return params;
        }

        /** Polls tasks/get until the task no longer offers {@code answeredKey}. */
        private static JsonNode awaitChange(TestClient client, String taskId, String answeredKey) throws InterruptedException {
            return poll(client, taskId, t -> !t.path("inputRequests").has(answeredKey));
        }
    }

    // ==================================================================== tasks, 2025-11-25 experimental tasks

    @Nested
    class LegacyTasks {

        private TestClient open() {
            TestClient client = TestClient.legacy(server, LEGACY).capabilities(json("{\"sampling\":{},\"elicitation\":{}}"));
            JsonNode init = client.initialize();
            assertThat(init.path("capabilities").path("tasks").path("requests").path("tools").has("call")).isTrue();
            return client;
        }

        private static ObjectNode asTask(String name, String arguments) {
            ObjectNode params = json("{\"name\":\"" + name + "\",\"arguments\":" + arguments + "}");
            params.putObject("task").put("ttl", 60_000);
            return params;
        }

        @Test
        void toolsListDeclaresTaskSupport() {
            try (TestClient client = open()) {
                for (JsonNode t : client.request("tools/list", Json.object()).result().path("tools")) {
                    String name = t.path("name").asString("");
                    String support = t.path("execution").path("taskSupport").asString("forbidden");
                    String expected = name.equals("slow_compute") ? ConformanceServer.SLOW_COMPUTE_TASK_SUPPORT.wire()
                            : ConformanceServer.TASK_TOOLS.contains(name) ? "required" : "forbidden";
                    assertThat(support).as(name).isEqualTo(expected);
                }
            }
        }

        @Test
        void taskRunsAndItsResultIsFetched() {
            try (TestClient client = open()) {
                JsonNode created = client.request("tools/call", asTask("slow_compute", "{\"seconds\":0,\"label\":\"legacy\"}"))
                        .result();
                JsonNode task = created.path("task");
                String taskId = task.path("taskId").asString("");
                assertThat(taskId).isNotEmpty();
                assertThat(task.path("ttl").asLong()).isEqualTo(60_000);
                assertThat(task.path("createdAt").asString("")).matches(ISO_8601);
                assertThat(created.has("resultType")).isFalse();
                ObjectNode id = json("{\"taskId\":\"" + taskId + "\"}");
                assertThat(client.request("tasks/get", id).result().path("taskId").asString("")).isEqualTo(taskId);
                assertThat(client.request("tasks/list", null).result().path("tasks").toString()).contains(taskId);
                JsonNode result = client.request("tasks/result", id).result();
                assertThat(result.path("content").get(0).path("text").asString("")).isEqualTo("Computed legacy after 0 s");
                assertThat(result.path("_meta").path("io.modelcontextprotocol/related-task").path("taskId").asString(""))
                        .isEqualTo(taskId);
                assertThat(client.request("tasks/get", id).result().path("status").asString("")).isEqualTo("completed");
            }
        }

        @Test
        void taskIsCancelled() {
            try (TestClient client = open()) {
                String taskId = client.request("tools/call", asTask("slow_compute", "{\"seconds\":60}")).result()
                        .path("task").path("taskId").asString("");
                ObjectNode id = json("{\"taskId\":\"" + taskId + "\"}");
                JsonNode cancelled = client.request("tasks/cancel", id).result();
                assertThat(cancelled.path("status").asString("")).isEqualTo("cancelled");
                assertThat(client.request("tasks/get", id).result().path("status").asString("")).isEqualTo("cancelled");
                assertThat(client.request("tasks/result", id).isError()).isTrue();
            }
        }

        @Test
        void toolErrorAndProtocolError() {
            try (TestClient client = open()) {
                String failing = client.request("tools/call", asTask("failing_job", "{}")).result()
                        .path("task").path("taskId").asString("");
                JsonNode toolError = client.request("tasks/result", json("{\"taskId\":\"" + failing + "\"}")).result();
                assertThat(toolError.path("isError").asBoolean(false)).isTrue();
                assertThat(toolError.path("content").get(0).path("text").asString("")).isEqualTo(ConformanceServer.FAILING_JOB_TEXT);
                assertThat(client.request("tasks/get", json("{\"taskId\":\"" + failing + "\"}")).result()
                        .path("status").asString("")).isEqualTo("failed");

                String broken = client.request("tools/call", asTask("protocol_error_job", "{}")).result()
                        .path("task").path("taskId").asString("");
                Response protocolError = client.request("tasks/result", json("{\"taskId\":\"" + broken + "\"}"));
                assertThat(protocolError.errorCode()).isEqualTo(-32603);
                assertThat(protocolError.error().path("message").asString("")).isEqualTo(ConformanceServer.PROTOCOL_ERROR_TEXT);
                assertThat(client.request("tasks/get", json("{\"taskId\":\"" + broken + "\"}")).result()
                        .path("status").asString("")).isEqualTo("failed");
            }
        }

        @Test
        void taskAsksTheClientWithRelatedTaskMeta() {
            try (TestClient client = open()) {
                client.onServerRequest(request -> accept("{\"confirm\":true,\"name\":\"Ada\"}"));
                String taskId = client.request("tools/call", asTask("confirm_delete", "{\"filename\":\"a.txt\"}")).result()
                        .path("task").path("taskId").asString("");
                JsonNode result = client.request("tasks/result", json("{\"taskId\":\"" + taskId + "\"}")).result();
                assertThat(result.path("content").get(0).path("text").asString("")).isEqualTo("Deleted a.txt");
                JsonNode elicitation = serverRequest(client, "elicitation/create");
                assertThat(elicitation.path("params").path("message").asString("")).isEqualTo("Delete a.txt?");
                assertThat(elicitation.path("params").path("_meta").path("io.modelcontextprotocol/related-task")
                        .path("taskId").asString("")).isEqualTo(taskId);

                String multi = client.request("tools/call", asTask("multi_input", "{}")).result()
                        .path("task").path("taskId").asString("");
                JsonNode both = client.request("tasks/result", json("{\"taskId\":\"" + multi + "\"}")).result();
                assertThat(both.path("content").get(0).path("text").asString("")).isEqualTo("Name: Ada; confirmed: true");
            }
        }

        @Test
        void taskRulesFollowTheToolsTaskSupport() {
            try (TestClient client = open()) {
                // required without task → -32601; forbidden with task → -32601
                assertThat(client.callTool("failing_job", Json.object()).errorCode()).isEqualTo(-32601);
                assertThat(client.request("tools/call", asTask("greet", "{\"name\":\"x\"}")).errorCode()).isEqualTo(-32601);
                assertThat(client.callTool("greet", json("{\"name\":\"x\"}")).result().path("content").get(0)
                        .path("text").asString("")).isEqualTo("Hello, x!");
            }
        }

        @Test
        void olderRevisionsRunTaskToolsDirectly() {
            try (TestClient client = TestClient.legacy(server, "2025-06-18")) {
                client.initialize();
                JsonNode result = client.callTool("slow_compute", json("{\"seconds\":0,\"label\":\"direct\"}")).result();
                assertThat(result.path("content").get(0).path("text").asString("")).isEqualTo("Computed direct after 0 s");
            }
        }
    }

    // ==================================================================== support

    private static JsonNode callTool(TestClient client, String name) {
        return client.callTool(name, Json.object()).result();
    }

    /** Answers the first input request of {@code previous}, echoing its requestState, as the suite does. */
    private static JsonNode answerFirst(TestClient client, String method, String name, JsonNode previous, JsonNode answer) {
        ObjectNode responses = Json.object();
        responses.set(firstKey(previous), answer);
        return answerAll(client, method, name, previous, responses);
    }

    private static JsonNode answerAll(TestClient client, String method, String name, JsonNode previous, ObjectNode responses) {
        ObjectNode params = Json.object();
        params.put("name", name);
        if (method.equals("tools/call")) {
            params.putObject("arguments");
        }
        params.set("inputResponses", responses.deepCopy());
        if (previous.has("requestState")) {
            params.put("requestState", previous.path("requestState").asString(""));
        }
        return client.request(method, params).result();
    }

    private static void assertInputRequired(JsonNode result) {
        assertThat(result.path("resultType").asString("")).isEqualTo("input_required");
        assertThat(result.path("inputRequests").isObject()).isTrue();
        assertThat(result.path("inputRequests").size()).isPositive();
        assertThat(result.has("content")).isFalse();
    }

    /** The suite's "complete": resultType is not input_required; 2026-07-28 results must say "complete". */
    private static void assertComplete(Era era, JsonNode result) {
        if (era == Era.MODERN) {
            assertThat(result.path("resultType").asString("")).isEqualTo("complete");
        } else {
            assertThat(result.has("resultType")).isFalse();
        }
    }

    private static String firstKey(JsonNode inputRequired) {
        return inputRequired.path("inputRequests").properties().iterator().next().getKey();
    }

    private static JsonNode firstRequest(JsonNode inputRequired) {
        return inputRequired.path("inputRequests").path(firstKey(inputRequired));
    }

    private static ObjectNode accept(String content) {
        ObjectNode answer = Json.object();
        answer.put("action", "accept");
        answer.set("content", json(content));
        return answer;
    }

    private static Response read(TestClient client, String uri) {
        ObjectNode params = Json.object();
        params.put("uri", uri);
        return client.request("resources/read", params);
    }

    private static JsonNode firstOfType(JsonNode result, String type) {
        for (JsonNode item : result.path("content")) {
            if (item.path("type").asString("").equals(type)) {
                return item;
            }
        }
        throw new AssertionError("No " + type + " content in " + result);
    }

    private static JsonNode messageContent(JsonNode promptResult, String type) {
        for (JsonNode m : promptResult.path("messages")) {
            if (m.path("content").path("type").asString("").equals(type)) {
                return m.path("content");
            }
        }
        throw new AssertionError("No " + type + " message in " + promptResult);
    }

    /** The notifications of {@code method} the client got before the response to {@code id}. */
    private static List<JsonNode> before(TestClient client, RequestId id, String method) {
        List<JsonNode> found = new ArrayList<>();
        long target = ((RequestId.NumberId) id).value();
        for (JsonNode m : client.received()) {
            if (!m.has("method") && m.path("id").asLong(-1) == target) {
                return found;
            }
            if (!m.has("id") && m.path("method").asString("").equals(method)) {
                found.add(m);
            }
        }
        throw new AssertionError("No response to " + id);
    }

    private static JsonNode serverRequest(TestClient client, String method) {
        for (JsonNode m : client.received()) {
            if (m.has("id") && m.path("method").asString("").equals(method)) {
                return m;
            }
        }
        throw new AssertionError("The server sent no " + method + " request: " + client.received());
    }

    private static void assertPng(String base64) throws Exception {
        assertThat(base64).isNotEmpty();
        byte[] bytes = Base64.getDecoder().decode(base64);
        assertThat(bytes).isEqualTo(ConformanceServer.PNG);
        var image = ImageIO.read(new ByteArrayInputStream(bytes));
        assertThat(image).as("decodes as an image").isNotNull();
        assertThat(image.getWidth()).isEqualTo(8);
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(v -> out.add(v.asString("")));
        return out;
    }

    private static List<String> keys(JsonNode object) {
        List<String> out = new ArrayList<>();
        object.propertyNames().forEach(out::add);
        return out;
    }

    /** Polls tasks/get until the status is {@code status} or terminal. */
    private static JsonNode awaitStatus(TestClient client, String taskId, String status) throws InterruptedException {
        return poll(client, taskId, t -> t.path("status").asString("").equals(status) || TERMINAL.contains(t.path("status").asString("")));
    }

    private static JsonNode awaitTerminal(TestClient client, String taskId) throws InterruptedException {
        return poll(client, taskId, t -> TERMINAL.contains(t.path("status").asString("")));
    }

    private static JsonNode poll(TestClient client, String taskId, java.util.function.Predicate<JsonNode> until)
            throws InterruptedException {
        ObjectNode params = Json.object();
        params.put("taskId", taskId);
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
        while (true) {
            JsonNode task = client.request("tasks/get", params).result();
            if (until.test(task)) {
                return task;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Task did not get there in time: " + task);
            }
            Thread.sleep(20);
        }
    }

    static ObjectNode json(String text) {
        return (ObjectNode) Json.mapper().readTree(text);
    }
}
