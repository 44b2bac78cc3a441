package dev.tern.server;

import java.util.List;

import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;

import dev.tern.protocol.Json;

import org.junit.jupiter.api.Test;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import static org.assertj.core.api.Assertions.assertThat;

/** The fast argument check never accepts what the full JSON Schema validator refuses, and accepts the usual calls. */
class SimpleArgumentCheckTest {
    private static final SchemaRegistry REGISTRY = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);

    private static ObjectNode json(String text) {
        return (ObjectNode) Json.mapper().readTree(text);
    }

    private static final List<String> SCHEMAS = List.of(
            """
            {"type":"object","properties":{"id":{"type":"string","description":"The user's id."}},
             "required":["id"],"additionalProperties":false}""",
            """
            {"type":"object","properties":{"n":{"type":"integer","minimum":-2147483648,"maximum":2147483647},
             "limit":{"type":"integer","minimum":1,"maximum":100,"default":10},
             "ratio":{"type":"number"},"flag":{"type":"boolean"},"maybe":{"type":["string","null"]},
             "color":{"type":"string","enum":["red","green"]},
             "code":{"type":"string","minLength":2,"maxLength":4}},
             "required":["n"]}""",
            """
            {"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","title":"t",
             "properties":{"q":{"type":"string"}},"additionalProperties":true}""");

    private static final List<String> ARGUMENTS = List.of(
            "{}", "[]", "\"x\"", "null", "{\"id\":\"7\"}", "{\"id\":7}", "{\"id\":null}", "{\"id\":\"7\",\"x\":1}",
            "{\"n\":1}", "{\"n\":1.0}", "{\"n\":1.5}", "{\"n\":\"1\"}", "{\"n\":2147483648}", "{\"n\":-2147483649}",
            "{\"n\":99999999999999999999999}", "{\"n\":1,\"limit\":0}", "{\"n\":1,\"limit\":100}",
            "{\"n\":1,\"limit\":101}", "{\"n\":1,\"ratio\":0.5}", "{\"n\":1,\"ratio\":3}", "{\"n\":1,\"ratio\":\"3\"}",
            "{\"n\":1,\"flag\":true}", "{\"n\":1,\"flag\":\"true\"}", "{\"n\":1,\"maybe\":null}",
            "{\"n\":1,\"maybe\":\"m\"}", "{\"n\":1,\"maybe\":1}", "{\"n\":1,\"color\":\"red\"}",
            "{\"n\":1,\"color\":\"blue\"}", "{\"n\":1,\"color\":null}", "{\"n\":1,\"code\":\"a\"}",
            "{\"n\":1,\"code\":\"ab\"}", "{\"n\":1,\"code\":\"abcd\"}", "{\"n\":1,\"code\":\"abcde\"}",
            "{\"n\":1,\"code\":\"\uD83D\uDE00\uD83D\uDE00\"}", "{\"n\":1,\"code\":\"\uD83D\uDE00\"}",
            "{\"n\":1,\"other\":{\"deep\":[1,2]}}", "{\"q\":\"x\",\"other\":[]}", "{\"q\":[]}", "{\"q\":{}}");

    @Test
    void neverAcceptsWhatTheFullValidatorRefuses() {
        int accepted = 0;
        for (String schemaText : SCHEMAS) {
            ObjectNode schema = json(schemaText);
            SimpleArgumentCheck check = SimpleArgumentCheck.compile(schema);
            assertThat(check).as(schemaText).isNotNull();
            var full = REGISTRY.getSchema(schema);
            for (String args : ARGUMENTS) {
                JsonNode instance = Json.mapper().readTree(args);
                boolean valid = full.validate(instance).isEmpty();
                if (check.accepts(instance)) {
                    accepted++;
                    assertThat(valid).as("%s against %s", args, schemaText).isTrue();
                }
            }
        }
        assertThat(accepted).isGreaterThan(15);
    }

    @Test
    void acceptsTheUsualCalls() {
        SimpleArgumentCheck byId = SimpleArgumentCheck.compile(json(SCHEMAS.get(0)));
        assertThat(byId.accepts(json("{\"id\":\"42\"}"))).isTrue();
        SimpleArgumentCheck many = SimpleArgumentCheck.compile(json(SCHEMAS.get(1)));
        assertThat(many.accepts(json("{\"n\":5,\"limit\":20,\"ratio\":0.25,\"flag\":false,\"maybe\":null,"
                + "\"color\":\"green\",\"code\":\"abc\"}"))).isTrue();
    }

    @Test
    void schemasBeyondItsKeywordsGetNoFastCheck() {
        for (String schema : List.of(
                "{\"type\":\"object\",\"properties\":{\"u\":{\"type\":\"string\",\"format\":\"uri\"}}}",
                "{\"type\":\"object\",\"properties\":{\"l\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}}}",
                "{\"type\":\"object\",\"properties\":{\"o\":{\"type\":\"object\"}}}",
                "{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"number\",\"minimum\":0.5}}}",
                "{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"integer\",\"exclusiveMinimum\":0}}}",
                "{\"type\":\"object\",\"properties\":{\"x\":{\"enum\":[1,2]}}}",
                "{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"string\",\"pattern\":\"^a\"}}}",
                "{\"type\":\"object\",\"properties\":{\"x\":true}}",
                "{\"type\":\"object\",\"additionalProperties\":{\"type\":\"string\"}}",
                "{\"type\":\"object\",\"$defs\":{},\"properties\":{}}",
                "{\"type\":\"object\",\"anyOf\":[{\"required\":[\"a\"]},{\"required\":[\"b\"]}]}",
                "{\"properties\":{\"x\":{\"type\":\"string\"}}}",
                "{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"type\":\"object\"}")) {
            assertThat(SimpleArgumentCheck.compile(json(schema))).as(schema).isNull();
        }
    }

    @Test
    void argumentsTheFastCheckLeavesAloneStillGetTheFullValidatorsMessages() {
        ArgumentValidator validator = ArgumentValidator.of(json(SCHEMAS.get(1)));
        assertThat(validator.validate(json("{\"n\":1}"))).isEmpty();
        assertThat(validator.validate(json("{\"n\":1.0}"))).isEmpty();
        assertThat(validator.validate(json("{\"n\":1,\"limit\":101}"))).singleElement().asString().contains("limit");
        assertThat(validator.validate(json("{}"))).singleElement().asString().contains("n");
    }
}
