package dev.tern.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Type;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.URI;
import java.time.Instant;
import java.time.LocalDate;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.annotation.JsonProperty;

import dev.tern.protocol.Json;

import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Schemas generated from Java types: their shape, that they are valid JSON Schema 2020-12 (checked against the
 * meta-schema), and that they accept the instances Jackson would bind and refuse the others.
 */
class SchemaGeneratorTest {

    enum Color { RED, GREEN, @JsonProperty("dark-blue") DARK_BLUE }

    record Address(String street, @Arg(description = "Postal code") String zip) {
    }

    record Person(
            @Arg(description = "Full name") String name,
            int age,
            Optional<String> nickname,
            @Arg(required = false) Integer height,
            @Arg(defaultValue = "5") int rating,
            @Arg(defaultValue = "guest") String role,
            @Arg(defaultValue = "[\"a\"]") List<String> tags,
            Color color,
            Address address,
            List<Address> previous,
            Set<String> labels,
            Map<String, Integer> scores) {
    }

    record Node(String name, List<Node> children) {
    }

    record Pair(Node left, Node right) {
    }

    record Everything(String s, char c, boolean b, Boolean boxed, byte by, short sh, int i, long l, float f, double d,
            BigDecimal dec, BigInteger big, UUID id, URI uri, Instant at, LocalDate day, byte[] bytes, int[] ints,
            String[] strings, List<List<Integer>> matrix, Map<String, Object> any, JsonNode json, ObjectNode object,
            Number number) {
    }

    private static ObjectNode schemaOf(Type type) {
        ObjectNode schema = SchemaGenerator.inputSchema(type);
        assertThat(SpecSchemas.metaSchemaViolations(schema)).as("meta-schema check of %s", schema).isEmpty();
        return schema;
    }

    private static List<String> validate(ObjectNode schema, String instance) {
        return ArgumentValidator.of(schema).validate(Json.mapper().readTree(instance));
    }

    // ------------------------------------------------------------------ shapes

    @Test
    void primitivesAndCommonTypes() {
        ObjectNode s = schemaOf(Everything.class);
        JsonNode p = s.get("properties");
        assertThat(p.at("/s/type").stringValue()).isEqualTo("string");
        assertThat(p.at("/c/type").stringValue()).isEqualTo("string");
        assertThat(p.at("/b/type").stringValue()).isEqualTo("boolean");
        assertThat(p.at("/boxed/type").stringValue()).isEqualTo("boolean");
        assertThat(p.at("/by/type").stringValue()).isEqualTo("integer");
        assertThat(p.at("/by/minimum").intValue()).isEqualTo(-128);
        assertThat(p.at("/by/maximum").intValue()).isEqualTo(127);
        assertThat(p.at("/sh/minimum").intValue()).isEqualTo(Short.MIN_VALUE);
        assertThat(p.at("/i/type").stringValue()).isEqualTo("integer");
        assertThat(p.at("/i/minimum").longValue()).isEqualTo(Integer.MIN_VALUE);
        assertThat(p.at("/i/maximum").longValue()).isEqualTo(Integer.MAX_VALUE);
        assertThat(p.at("/l/type").stringValue()).isEqualTo("integer");
        assertThat(p.at("/big/type").stringValue()).isEqualTo("integer");
        assertThat(p.at("/f/type").stringValue()).isEqualTo("number");
        assertThat(p.at("/d/type").stringValue()).isEqualTo("number");
        assertThat(p.at("/dec/type").stringValue()).isEqualTo("number");
        assertThat(p.at("/number/type").stringValue()).isEqualTo("number");
        assertThat(p.at("/id/type").stringValue()).isEqualTo("string");
        assertThat(p.at("/uri/format").stringValue()).isEqualTo("uri");
        assertThat(p.at("/at/format").stringValue()).isEqualTo("date-time");
        assertThat(p.at("/day/format").stringValue()).isEqualTo("date");
        assertThat(p.at("/bytes/type").stringValue()).isEqualTo("string");
        assertThat(p.at("/bytes/contentEncoding").stringValue()).isEqualTo("base64");
        assertThat(p.at("/ints/type").stringValue()).isEqualTo("array");
        assertThat(p.at("/ints/items/type").stringValue()).isEqualTo("integer");
        assertThat(p.at("/strings/items/type").stringValue()).isEqualTo("string");
        assertThat(p.at("/matrix/items/items/type").stringValue()).isEqualTo("integer");
        assertThat(p.at("/any/type").stringValue()).isEqualTo("object");
        assertThat(p.at("/any").has("additionalProperties")).isFalse();
        assertThat(p.at("/json").has("type")).isFalse();
        assertThat(p.at("/object/type").stringValue()).isEqualTo("object");
    }

    @Test
    void recordsAreClosedObjectsWithRequiredComponents() {
        ObjectNode s = schemaOf(Person.class);
        assertThat(s.get("type").stringValue()).isEqualTo("object");
        assertThat(s.get("additionalProperties").booleanValue()).isFalse();
        List<String> required = new java.util.ArrayList<>();
        s.get("required").forEach(n -> required.add(n.stringValue()));
        assertThat(required).containsExactlyInAnyOrder("name", "age", "color", "address", "previous", "labels", "scores");
    }

    @Test
    void argAnnotationsGiveDescriptionsDefaultsAndOptionality() {
        JsonNode p = schemaOf(Person.class).get("properties");
        assertThat(p.at("/name/description").stringValue()).isEqualTo("Full name");
        assertThat(p.at("/rating/default").intValue()).isEqualTo(5);
        assertThat(p.at("/rating/default").isIntegralNumber()).isTrue();
        assertThat(p.at("/role/default").stringValue()).isEqualTo("guest");
        assertThat(p.at("/tags/default").isArray()).isTrue();
        assertThat(p.at("/tags/default/0").stringValue()).isEqualTo("a");
        assertThat(p.at("/address/properties/zip/description").stringValue()).isEqualTo("Postal code");
    }

    @Test
    void optionalsAreTheirContentTypeAndNotRequired() {
        JsonNode p = schemaOf(Person.class).get("properties");
        assertThat(p.at("/nickname/type").stringValue()).isEqualTo("string");
    }

    @Test
    void enumsListTheirWireValues() {
        JsonNode color = schemaOf(Person.class).at("/properties/color");
        assertThat(color.get("type").stringValue()).isEqualTo("string");
        assertThat(color.get("enum").toString()).isEqualTo("[\"RED\",\"GREEN\",\"dark-blue\"]");
    }

    @Test
    void collectionsSetsAndMaps() {
        JsonNode p = schemaOf(Person.class).get("properties");
        assertThat(p.at("/previous/type").stringValue()).isEqualTo("array");
        assertThat(p.at("/previous/items/type").stringValue()).isEqualTo("object");
        assertThat(p.at("/previous/items/properties/street/type").stringValue()).isEqualTo("string");
        assertThat(p.at("/labels/uniqueItems").booleanValue()).isTrue();
        assertThat(p.at("/scores/type").stringValue()).isEqualTo("object");
        assertThat(p.at("/scores/additionalProperties/type").stringValue()).isEqualTo("integer");
    }

    @Test
    void recursiveRecordsTerminate() {
        ObjectNode s = schemaOf(Node.class);
        assertThat(s.at("/properties/children/items/type").stringValue()).isEqualTo("object");
        assertThat(validate(s, "{\"name\":\"root\",\"children\":[{\"name\":\"a\",\"children\":[]}]}")).isEmpty();
        assertThat(validate(s, "{\"name\":1,\"children\":[]}")).isNotEmpty();
    }

    @Test
    void aRecordUsedTwiceSideBySideIsNotMistakenForACycle() {
        ObjectNode s = schemaOf(Pair.class);
        assertThat(s.at("/properties/left/properties/name/type").stringValue()).isEqualTo("string");
        assertThat(s.at("/properties/right/properties/name/type").stringValue()).isEqualTo("string");
    }

    @Test
    void mapsAreValidArgumentTypes() {
        ObjectNode s = schemaOf(new TypeReference<Map<String, String>>() { }.getType());
        assertThat(s.get("type").stringValue()).isEqualTo("object");
        assertThat(validate(s, "{\"a\":\"x\"}")).isEmpty();
        assertThat(validate(s, "{\"a\":1}")).isNotEmpty();
    }

    @Test
    void argumentsMustBeAnObjectType() {
        assertThatThrownBy(() -> SchemaGenerator.inputSchema(String.class)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SchemaGenerator.inputSchema(int.class)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SchemaGenerator.inputSchema(new TypeReference<List<String>>() { }.getType()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SchemaGenerator.outputSchema(String.class)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void objectSchemaFromProperties() {
        ObjectNode s = SchemaGenerator.objectSchema(List.of(
                new SchemaGenerator.Property("q", String.class, "the query", true, null),
                new SchemaGenerator.Property("limit", int.class, "", true, "10"),
                new SchemaGenerator.Property("opt", Optional.class, null, true, null),
                new SchemaGenerator.Property("flag", boolean.class, null, false, null)));
        assertThat(SpecSchemas.metaSchemaViolations(s)).isEmpty();
        assertThat(s.get("required").toString()).isEqualTo("[\"q\"]");
        assertThat(s.at("/properties/q/description").stringValue()).isEqualTo("the query");
        assertThat(s.at("/properties/limit").has("description")).isFalse();
        assertThat(s.at("/properties/limit/default").intValue()).isEqualTo(10);
        assertThat(SchemaGenerator.defaults(s).toString()).isEqualTo("{\"limit\":10}");
        assertThat(s.get("additionalProperties").booleanValue()).isFalse();
    }

    @Test
    void noParametersGiveTheRecommendedEmptySchema() {
        ObjectNode s = SchemaGenerator.emptyObjectSchema();
        assertThat(s.toString()).isEqualTo("{\"type\":\"object\",\"additionalProperties\":false}");
        assertThat(SpecSchemas.metaSchemaViolations(s)).isEmpty();
        assertThat(SchemaGenerator.objectSchema(List.of()).has("required")).isFalse();
    }

    @Test
    void aStringDefaultThatLooksLikeJsonStaysAString() {
        ObjectNode s = SchemaGenerator.objectSchema(List.of(new SchemaGenerator.Property("v", String.class, null, true, "42")));
        assertThat(s.at("/properties/v/default").isString()).isTrue();
        assertThat(s.at("/properties/v/default").stringValue()).isEqualTo("42");
    }

    // ------------------------------------------------------------------ sample instances

    private static final String VALID_PERSON = "{\"name\":\"Ada\",\"age\":36,\"color\":\"dark-blue\","
            + "\"address\":{\"street\":\"Main\",\"zip\":\"1\"},\"previous\":[],\"labels\":[\"x\",\"y\"],"
            + "\"scores\":{\"math\":10}}";

    @Test
    void validInstancesPass() {
        ObjectNode s = schemaOf(Person.class);
        assertThat(validate(s, VALID_PERSON)).isEmpty();
        ObjectNode full = (ObjectNode) Json.mapper().readTree(VALID_PERSON);
        full.put("nickname", "A").put("height", 170).put("rating", 3).put("role", "admin");
        full.putArray("tags").add("t");
        assertThat(validate(s, full.toString())).isEmpty();
        // and Jackson binds what the schema accepts
        Person p = Json.mapper().treeToValue(full, Person.class);
        assertThat(p.color()).isEqualTo(Color.DARK_BLUE);
    }

    @Test
    void invalidInstancesFail() {
        ObjectNode s = schemaOf(Person.class);
        ObjectNode base = (ObjectNode) Json.mapper().readTree(VALID_PERSON);
        assertThat(validate(s, with(base, b -> b.remove("name")))).isNotEmpty();
        assertThat(validate(s, with(base, b -> b.put("age", "36")))).isNotEmpty();
        assertThat(validate(s, with(base, b -> b.put("age", 1.5)))).isNotEmpty();
        assertThat(validate(s, with(base, b -> b.put("age", 3_000_000_000L)))).isNotEmpty();
        assertThat(validate(s, with(base, b -> b.put("color", "BLUE")))).isNotEmpty();
        assertThat(validate(s, with(base, b -> b.put("unexpected", 1)))).isNotEmpty();
        assertThat(validate(s, with(base, b -> ((ObjectNode) b.get("address")).put("extra", 1)))).isNotEmpty();
        assertThat(validate(s, with(base, b -> b.putArray("labels").add("x").add("x")))).isNotEmpty();
        assertThat(validate(s, with(base, b -> ((ObjectNode) b.get("scores")).put("art", "ten")))).isNotEmpty();
        assertThat(validate(s, with(base, b -> b.putNull("name")))).isNotEmpty();
        assertThat(validate(s, "[]")).isNotEmpty();
    }

    @Test
    void everythingAcceptsARealisticInstance() {
        ObjectNode s = schemaOf(Everything.class);
        String instance = "{\"s\":\"x\",\"c\":\"y\",\"b\":true,\"boxed\":false,\"by\":1,\"sh\":2,\"i\":3,\"l\":4,\"f\":1.5,"
                + "\"d\":2.5,\"dec\":3.25,\"big\":123456789012345678901234567890,\"id\":\"" + UUID.randomUUID() + "\","
                + "\"uri\":\"https://example.com/a\",\"at\":\"2025-01-12T15:00:58Z\",\"day\":\"2025-01-12\","
                + "\"bytes\":\"AAEC\",\"ints\":[1,2],\"strings\":[\"a\"],\"matrix\":[[1],[2,3]],\"any\":{\"k\":[1,{}]},"
                + "\"json\":[1,\"x\"],\"object\":{},\"number\":7}";
        assertThat(validate(s, instance)).isEmpty();
        Everything e = Json.mapper().readValue(instance, Everything.class);
        assertThat(e.bytes()).containsExactly(0, 1, 2);
        assertThat(validate(s, instance.replace("\"by\":1", "\"by\":300"))).isNotEmpty();
        assertThat(validate(s, instance.replace("\"ints\":[1,2]", "\"ints\":[1,\"2\"]"))).isNotEmpty();
    }

    @Test
    void everyGeneratedSchemaIsAValidSchema() {
        for (Type t : List.of(Person.class, Address.class, Node.class, Pair.class, Everything.class,
                new TypeReference<Map<String, List<Address>>>() { }.getType())) {
            ObjectNode s = SchemaGenerator.schema(t, new HashSet<>(), false);
            assertThat(SpecSchemas.metaSchemaViolations(s)).as(t.getTypeName()).isEmpty();
        }
    }

    private static String with(ObjectNode base, java.util.function.Consumer<ObjectNode> change) {
        ObjectNode copy = base.deepCopy();
        change.accept(copy);
        return copy.toString();
    }
}
