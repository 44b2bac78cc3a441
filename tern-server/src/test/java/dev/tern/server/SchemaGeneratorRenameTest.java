package dev.tern.server;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.annotation.JsonProperty;

import dev.tern.protocol.Json;

import tools.jackson.databind.node.ObjectNode;

/** Exposes: SchemaGenerator ignores @JsonProperty on record components, so schema and binding disagree. */
class SchemaGeneratorRenameTest {
    record Contact(@JsonProperty("e-mail") String email) {
    }

    @Test
    void jsonPropertyRenamesAComponentInTheSchemaAsJacksonDoes() {
        ObjectNode s = SchemaGenerator.inputSchema(Contact.class);
        assertThat(s.get("properties").has("e-mail")).isTrue();
        assertThat(s.get("properties").has("email")).isFalse();
        // the instance Jackson binds must pass the schema
        assertThat(ArgumentValidator.of(s).validate(Json.mapper().readTree("{\"e-mail\":\"a@b.c\"}"))).isEmpty();
        assertThat(Json.mapper().readValue("{\"e-mail\":\"a@b.c\"}", Contact.class).email()).isEqualTo("a@b.c");
    }
}
