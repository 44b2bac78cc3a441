package dev.tern.protocol;

import static dev.tern.protocol.SpecExamples.normalized;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import dev.tern.protocol.SpecExamples.Example;
import dev.tern.protocol.model.Annotations;
import dev.tern.protocol.model.CallToolResult;
import dev.tern.protocol.model.Completion;
import dev.tern.protocol.model.Content;
import dev.tern.protocol.model.CreateMessageResult;
import dev.tern.protocol.model.ElicitResult;
import dev.tern.protocol.model.GetPromptResult;
import dev.tern.protocol.model.Implementation;
import dev.tern.protocol.model.LoggingLevel;
import dev.tern.protocol.model.PromptDefinition;
import dev.tern.protocol.model.PromptMessage;
import dev.tern.protocol.model.ReadResourceResult;
import dev.tern.protocol.model.ResourceContents;
import dev.tern.protocol.model.ResourceDefinition;
import dev.tern.protocol.model.ResourceTemplate;
import dev.tern.protocol.model.Root;
import dev.tern.protocol.model.ToolDefinition;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The official 2026-07-28 examples: every JSON-RPC message among them decodes and re-encodes without loss, and
 * every value that has a model record survives a round trip through it.
 */
class SpecExamplesTest {
    private static final String REVISION = "2026-07-28";
    private static final JsonRpcCodec CODEC = JsonRpcCodec.withDefaults();

    /**
     * The members of the {@code Result} base that the server's dispatcher writes around a handler's result
     * ({@code resultType} on every 2026-07-28 result, {@code ttlMs}/{@code cacheScope} on cacheable ones); the
     * result records model only the payload.
     */
    private static final Set<String> DISPATCHER_MEMBERS = Set.of("resultType", "ttlMs", "cacheScope");

    /** Where, in examples of a type, a value with a model record sits; "*" stands for every item or member. */
    private record Mapping(String pointer, Class<?> model) {
    }

    private static final Map<String, List<Mapping>> MODELS = Map.ofEntries(
            Map.entry("Tool", List.of(new Mapping("", ToolDefinition.class))),
            Map.entry("ListToolsResult", List.of(new Mapping("/tools/*", ToolDefinition.class))),
            Map.entry("ListToolsResultResponse", List.of(new Mapping("/result/tools/*", ToolDefinition.class))),
            Map.entry("CallToolResult", List.of(new Mapping("", CallToolResult.class))),
            Map.entry("CallToolResultResponse", List.of(new Mapping("/result", CallToolResult.class))),
            Map.entry("Resource", List.of(new Mapping("", ResourceDefinition.class))),
            Map.entry("ListResourcesResult", List.of(new Mapping("/resources/*", ResourceDefinition.class))),
            Map.entry("ListResourcesResultResponse", List.of(new Mapping("/result/resources/*", ResourceDefinition.class))),
            Map.entry("ListResourceTemplatesResult", List.of(new Mapping("/resourceTemplates/*", ResourceTemplate.class))),
            Map.entry("ListResourceTemplatesResultResponse",
                    List.of(new Mapping("/result/resourceTemplates/*", ResourceTemplate.class))),
            Map.entry("ListPromptsResult", List.of(new Mapping("/prompts/*", PromptDefinition.class))),
            Map.entry("ListPromptsResultResponse", List.of(new Mapping("/result/prompts/*", PromptDefinition.class))),
            Map.entry("GetPromptResult", List.of(new Mapping("", GetPromptResult.class),
                    new Mapping("/messages/*", PromptMessage.class))),
            Map.entry("GetPromptResultResponse", List.of(new Mapping("/result", GetPromptResult.class))),
            Map.entry("ReadResourceResult", List.of(new Mapping("", ReadResourceResult.class),
                    new Mapping("/contents/*", ResourceContents.class))),
            Map.entry("ReadResourceResultResponse", List.of(new Mapping("/result", ReadResourceResult.class))),
            Map.entry("TextContent", List.of(new Mapping("", Content.class))),
            Map.entry("ImageContent", List.of(new Mapping("", Content.class), new Mapping("/annotations", Annotations.class))),
            Map.entry("AudioContent", List.of(new Mapping("", Content.class))),
            Map.entry("EmbeddedResource", List.of(new Mapping("", Content.class))),
            Map.entry("ResourceLink", List.of(new Mapping("", Content.class))),
            Map.entry("ToolUseContent", List.of(new Mapping("", Content.class))),
            Map.entry("ToolResultContent", List.of(new Mapping("", Content.class))),
            Map.entry("TextResourceContents", List.of(new Mapping("", ResourceContents.class))),
            Map.entry("BlobResourceContents", List.of(new Mapping("", ResourceContents.class))),
            Map.entry("ElicitResult", List.of(new Mapping("", ElicitResult.class))),
            Map.entry("CreateMessageResult", List.of(new Mapping("", CreateMessageResult.class))),
            Map.entry("InputResponses", List.of(new Mapping("/github_login", ElicitResult.class),
                    new Mapping("/capital_of_france", CreateMessageResult.class))),
            Map.entry("Root", List.of(new Mapping("", Root.class))),
            Map.entry("ListRootsResult", List.of(new Mapping("/roots/*", Root.class))),
            Map.entry("CompleteResult", List.of(new Mapping("/completion", Completion.class))),
            Map.entry("CompleteResultResponse", List.of(new Mapping("/result/completion", Completion.class))),
            Map.entry("CallToolRequest", List.of(new Mapping("/params/_meta/io.modelcontextprotocol~1clientInfo",
                    Implementation.class))),
            Map.entry("DiscoverResult", List.of(new Mapping("/_meta/io.modelcontextprotocol~1serverInfo", Implementation.class))),
            Map.entry("DiscoverResultResponse", List.of(new Mapping("/result/_meta/io.modelcontextprotocol~1serverInfo",
                    Implementation.class))),
            Map.entry("LoggingMessageNotificationParams", List.of(new Mapping("/level", LoggingLevel.class))));

    static Stream<Example> jsonRpcMessages() {
        return SpecExamples.all(REVISION).stream().filter(e -> e.json().has("jsonrpc"));
    }

    @Test
    void theExamplesAreThere() {
        List<Example> all = SpecExamples.all(REVISION);
        assertThat(all).hasSizeGreaterThanOrEqualTo(100);
        assertThat(jsonRpcMessages().count()).isGreaterThanOrEqualTo(25);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jsonRpcMessages")
    void jsonRpcExampleDecodesAndReencodesWithoutLoss(Example example) {
        Decoded decoded = CODEC.decode(example.bytes());
        assertThat(decoded).as("decoding %s", example).isInstanceOf(Decoded.Single.class);
        JsonRpcMessage message = ((Decoded.Single) decoded).message();
        assertThat(normalized(CODEC.toTree(message))).isEqualTo(normalized(example.json()));
        // and the re-encoded bytes decode to the same message again
        assertThat(((Decoded.Single) CODEC.decode(CODEC.encode(message))).message()).isEqualTo(message);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jsonRpcMessages")
    void jsonRpcExampleHasTheKindItsTypeNames(Example example) {
        JsonRpcMessage message = ((Decoded.Single) CODEC.decode(example.bytes())).message();
        String type = example.type();
        if (type.endsWith("Request")) {
            assertThat(message).isInstanceOf(JsonRpcRequest.class);
        } else if (type.endsWith("Notification")) {
            assertThat(message).isInstanceOf(JsonRpcNotification.class);
        } else if (type.endsWith("ResultResponse")) {
            assertThat(message).isInstanceOf(JsonRpcResult.class);
        } else if (type.endsWith("Error")) {
            assertThat(message).isInstanceOf(JsonRpcFailure.class);
        }
    }

    static Stream<Arguments> modelValues() {
        List<Arguments> values = new ArrayList<>();
        for (Example e : SpecExamples.all(REVISION)) {
            for (Mapping m : MODELS.getOrDefault(e.type(), List.of())) {
                List<JsonNode> found = resolve(e.json(), m.pointer());
                assertThat(found).as("%s in %s", m.pointer(), e).isNotEmpty();
                for (int i = 0; i < found.size(); i++) {
                    String where = e.path() + (m.pointer().isEmpty() ? "" : " " + m.pointer()) + (found.size() > 1 ? "[" + i + "]" : "");
                    values.add(Arguments.of(where, m.model(), found.get(i)));
                }
            }
        }
        return values.stream();
    }

    @Test
    void everyMappedTypeHasExamples() {
        Set<String> types = new java.util.HashSet<>();
        SpecExamples.all(REVISION).forEach(e -> types.add(e.type()));
        assertThat(types).containsAll(MODELS.keySet());
    }

    @ParameterizedTest(name = "{0} as {1}")
    @MethodSource("modelValues")
    void modelRecordRoundTripsWithoutLoss(String where, Class<?> model, JsonNode value) {
        JsonNode expected = value;
        if (value instanceof ObjectNode o && (model == CallToolResult.class || model == GetPromptResult.class
                || model == ReadResourceResult.class)) {
            ObjectNode payload = o.deepCopy();
            payload.remove(DISPATCHER_MEMBERS);
            expected = payload;
        }
        Object bound = Json.mapper().treeToValue(expected, model);
        assertThat(bound).isInstanceOf(model);
        JsonNode back = Json.mapper().valueToTree(bound);
        assertThat(normalized(back)).as(where).isEqualTo(normalized(expected));
        // and once more: binding the written value gives an equal record
        assertThat(Json.mapper().treeToValue(back, model)).isEqualTo(bound);
    }

    private static List<JsonNode> resolve(JsonNode root, String pointer) {
        List<JsonNode> current = List.of(root);
        if (pointer.isEmpty()) {
            return current;
        }
        for (String token : pointer.substring(1).split("/")) {
            List<JsonNode> next = new ArrayList<>();
            for (JsonNode n : current) {
                if (token.equals("*")) {
                    n.forEach(next::add);
                } else {
                    JsonNode child = n.at("/" + token);
                    if (!child.isMissingNode()) {
                        next.add(child);
                    }
                }
            }
            current = next;
        }
        return current;
    }
}
