package dev.tern.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

import dev.tern.protocol.Json;

import tools.jackson.databind.node.ObjectNode;

/** The messages a model reads when its arguments break a tool's input schema: specific and actionable. */
class ArgumentValidatorTest {
    private static final ObjectNode SCHEMA = (ObjectNode) Json.mapper().readTree("""
            {"type":"object",
             "properties":{
               "city":{"type":"string","minLength":2},
               "days":{"type":"integer","minimum":1,"maximum":14},
               "units":{"type":"string","enum":["metric","imperial"]},
               "tags":{"type":"array","items":{"type":"string"},"maxItems":3},
               "where":{"type":"object","properties":{"lat":{"type":"number"}},"required":["lat"],
                        "additionalProperties":false}},
             "required":["city","days"],
             "additionalProperties":false}""");

    private final ArgumentValidator validator = ArgumentValidator.of(SCHEMA);

    private List<String> validate(String json) {
        return validator.validate(Json.mapper().readTree(json));
    }

    @Test
    void validArgumentsGiveNoMessages() {
        assertThat(validate("{\"city\":\"Oslo\",\"days\":3}")).isEmpty();
        assertThat(validate("{\"city\":\"Oslo\",\"days\":14,\"units\":\"metric\",\"tags\":[\"a\"],\"where\":{\"lat\":1.5}}"))
                .isEmpty();
    }

    @Test
    void missingRequiredPropertyIsNamed() {
        List<String> m = validate("{\"city\":\"Oslo\"}");
        assertThat(m).hasSize(1);
        assertThat(m.get(0)).contains("days").containsIgnoringCase("required");
    }

    @Test
    void wrongTypeNamesThePropertyAndTheExpectedType() {
        List<String> m = validate("{\"city\":\"Oslo\",\"days\":\"three\"}");
        assertThat(m).hasSize(1);
        assertThat(m.get(0)).contains("days").contains("integer").contains("string");
    }

    @Test
    void outOfRangeNamesTheBound() {
        List<String> m = validate("{\"city\":\"Oslo\",\"days\":30}");
        assertThat(m).hasSize(1);
        assertThat(m.get(0)).contains("days").contains("14");
    }

    @Test
    void unexpectedPropertyIsNamed() {
        List<String> m = validate("{\"city\":\"Oslo\",\"days\":1,\"color\":\"red\"}");
        assertThat(m).hasSize(1);
        assertThat(m.get(0)).contains("color");
    }

    @Test
    void enumViolationListsTheAllowedValues() {
        List<String> m = validate("{\"city\":\"Oslo\",\"days\":1,\"units\":\"kelvin\"}");
        assertThat(m).hasSize(1);
        assertThat(m.get(0)).contains("units").contains("metric").contains("imperial");
    }

    @Test
    void nestedViolationsCarryTheirPath() {
        List<String> m = validate("{\"city\":\"Oslo\",\"days\":1,\"where\":{\"lng\":2}}");
        assertThat(m).isNotEmpty();
        assertThat(String.join("\n", m)).contains("where").contains("lat").contains("lng");
        List<String> item = validate("{\"city\":\"Oslo\",\"days\":1,\"tags\":[\"a\",2]}");
        assertThat(item).hasSize(1);
        assertThat(item.get(0)).contains("tags").contains("1");
    }

    @Test
    void everyViolationIsReportedUpToTen() {
        List<String> m = validate("{\"city\":\"O\",\"days\":0,\"units\":\"x\",\"tags\":[1,2,3,4]}");
        assertThat(m).hasSizeGreaterThanOrEqualTo(4).hasSizeLessThanOrEqualTo(11);
        assertThat(String.join("\n", m)).contains("city").contains("days").contains("units").contains("tags");
    }

    @Test
    void moreThanTenViolationsAreSummarised() {
        StringBuilder props = new StringBuilder("{\"city\":\"Oslo\",\"days\":1");
        for (int i = 0; i < 25; i++) {
            props.append(",\"extra").append(i).append("\":").append(i);
        }
        props.append('}');
        List<String> m = validate(props.toString());
        assertThat(m).hasSize(11);
        assertThat(m.get(10)).contains("15 more");
    }

    @Test
    void aNonObjectIsRefused() {
        assertThat(validate("[]")).isNotEmpty();
        assertThat(validate("\"city\"")).isNotEmpty();
        assertThat(validate("null")).isNotEmpty();
    }

    @Test
    void messagesDoNotDumpTheWholeInstance() {
        String big = "x".repeat(10_000);
        List<String> m = validate("{\"city\":\"Oslo\",\"days\":1,\"units\":\"" + big + "\"}");
        assertThat(String.join("\n", m).length()).isLessThan(5_000);
    }

    @Test
    void theEmptySchemaOfAToolWithoutParametersRefusesArguments() {
        ArgumentValidator none = ArgumentValidator.of(SchemaGenerator.emptyObjectSchema());
        assertThat(none.validate(Json.object())).isEmpty();
        assertThat(none.validate(Json.object().put("x", 1))).isNotEmpty();
    }
}
