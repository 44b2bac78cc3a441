package dev.tern.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.LocalDate;

import org.junit.jupiter.api.Test;

import dev.tern.protocol.Json;

import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.ValueSerializer;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.module.SimpleModule;
import tools.jackson.databind.node.ObjectNode;

/** Two servers in one JVM, one with a JSON mapper of its own: it binds, serializes and names, the other keeps the default. */
class JsonMapperPerServerTest {
    record Lookup(String userId) {
    }

    record Profile(String firstName, int loginCount, LocalDate since) {
    }

    static class Users {
        @Tool
        public Profile profile(String userId, Lookup also) {
            return new Profile(userId + "/" + also.userId(), 3, LocalDate.of(2024, 5, 1));
        }

        @Resource(uri = "users://{id}")
        public Profile user(String id) {
            return new Profile(id, 1, LocalDate.of(2024, 5, 1));
        }
    }

    /** Writes dates as day.month.year: a serializer only the custom mapper has. */
    static final class DottedDate extends ValueSerializer<LocalDate> {
        @Override
        public void serialize(LocalDate value, JsonGenerator gen, SerializationContext ctxt) {
            gen.writeString(value.getDayOfMonth() + "." + value.getMonthValue() + "." + value.getYear());
        }
    }

    private static ToolSpec typedTool() {
        return ToolSpec.builder("lookup").handler(Lookup.class, (ctx, lookup) -> new Profile(lookup.userId(), 7,
                LocalDate.of(2020, 1, 2))).output(Profile.class).build();
    }

    private static JsonMapper snakeCase() {
        return Json.mapper().rebuild()
                .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
                .addModule(new SimpleModule().addSerializer(LocalDate.class, new DottedDate()))
                .build();
    }

    @Test
    void aServersMapperNamesBindsAndSerializesItsToolsWhileAnotherServerKeepsTheDefault() {
        try (McpServer custom = McpServer.builder().tool(typedTool()).jsonMapper(snakeCase()).register(new Users())
                .build();
                McpServer plain = McpServer.builder().tool(typedTool()).register(new Users()).build();
                Peer c = new Peer(custom); Peer p = new Peer(plain)) {
            JsonNode customTools = c.modernRequest("tools/list", null).at("/result/tools");
            JsonNode plainTools = p.modernRequest("tools/list", null).at("/result/tools");
            assertThat(customTools.at("/0/inputSchema/properties").propertyNames()).containsExactly("user_id");
            assertThat(customTools.at("/0/outputSchema/properties").propertyNames())
                    .containsExactly("first_name", "login_count", "since");
            assertThat(customTools.at("/1/inputSchema/properties/also/properties").propertyNames())
                    .containsExactly("user_id");
            assertThat(plainTools.at("/0/inputSchema/properties").propertyNames()).containsExactly("userId");
            assertThat(plainTools.at("/0/outputSchema/properties").propertyNames())
                    .containsExactly("firstName", "loginCount", "since");

            JsonNode customResult = call(c, "lookup", Json.object().put("user_id", "ada"));
            assertThat(customResult.at("/structuredContent/first_name").stringValue()).isEqualTo("ada");
            assertThat(customResult.at("/structuredContent/since").stringValue()).isEqualTo("2.1.2020");
            assertThat(customResult.at("/content/0/text").stringValue()).contains("\"login_count\":7");
            JsonNode plainResult = call(p, "lookup", Json.object().put("userId", "ada"));
            assertThat(plainResult.at("/structuredContent/firstName").stringValue()).isEqualTo("ada");
            assertThat(plainResult.at("/structuredContent/since").stringValue()).isEqualTo("2020-01-02");

            ObjectNode annotated = Json.object().put("userId", "x");
            annotated.putObject("also").put("user_id", "y");
            assertThat(call(c, "profile", annotated).at("/structuredContent/first_name").stringValue()).isEqualTo("x/y");
            ObjectNode plainAnnotated = Json.object().put("userId", "x");
            plainAnnotated.putObject("also").put("userId", "y");
            assertThat(call(p, "profile", plainAnnotated).at("/structuredContent/firstName").stringValue())
                    .isEqualTo("x/y");
        }
    }

    @Test
    void aServersMapperWritesWhatAnAnnotatedResourceReturns() {
        try (McpServer custom = McpServer.builder().register(new Users()).jsonMapper(snakeCase()).build();
                McpServer plain = McpServer.builder().register(new Users()).build();
                Peer c = new Peer(custom); Peer p = new Peer(plain)) {
            assertThat(read(c, "users://7")).contains("\"first_name\":\"7\"").contains("\"since\":\"1.5.2024\"");
            assertThat(read(p, "users://7")).contains("\"firstName\":\"7\"").contains("\"since\":\"2024-05-01\"");
        }
    }

    @Test
    void aToolAddedAtRunTimeFollowsTheServersMapper() {
        try (McpServer custom = McpServer.builder().jsonMapper(snakeCase()).build(); Peer c = new Peer(custom)) {
            custom.addTool(typedTool());
            assertThat(call(c, "lookup", Json.object().put("user_id", "bo")).at("/structuredContent/first_name")
                    .stringValue()).isEqualTo("bo");
        }
    }

    private static JsonNode call(Peer peer, String tool, ObjectNode arguments) {
        ObjectNode params = Json.object().put("name", tool);
        params.set("arguments", arguments);
        JsonNode result = peer.modernRequest("tools/call", params).get("result");
        assertThat(result.path("isError").asBoolean(false)).as("%s", result).isFalse();
        return Json.materialize(result);
    }

    private static String read(Peer peer, String uri) {
        return peer.modernRequest("resources/read", Json.object().put("uri", uri)).at("/result/contents/0/text")
                .stringValue();
    }
}
