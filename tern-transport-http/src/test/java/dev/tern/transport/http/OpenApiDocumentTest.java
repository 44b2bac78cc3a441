package dev.tern.transport.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;

import dev.tern.protocol.Json;
import dev.tern.protocol.model.CallToolResult;
import dev.tern.protocol.model.ToolDefinition;
import dev.tern.server.McpServer;
import dev.tern.server.ToolSpec;

import org.junit.jupiter.api.Test;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code /openapi.json}: a valid OpenAPI 3.1 document (checked against the official schema) that matches the registry. */
class OpenApiDocumentTest {
    private static final String OAS_ID = "https://spec.openapis.org/oas/3.1/schema/2022-10-07";
    private static final String OAS_BASE_ID = "https://spec.openapis.org/oas/3.1/schema-base/2022-10-07";
    private static final Schema OAS = oasSchema();

    record Page(java.util.List<String> items, Nested nested) {
    }

    record Nested(String note, Nested next) {
    }

    /**
     * The official schema in its strict form ("schema-base"): documents must be OpenAPI 3.1 and every Schema Object
     * in them a valid schema of the OpenAPI dialect of JSON Schema 2020-12.
     */
    private static Schema oasSchema() {
        Map<String, String> schemas = Map.of(
                OAS_ID, resource("oas-3.1-schema-2022-10-07.json"),
                OAS_BASE_ID, resource("oas-3.1-schema-base-2022-10-07.json"),
                "https://spec.openapis.org/oas/3.1/dialect/base", resource("oas-3.1-dialect-base.json"),
                "https://spec.openapis.org/oas/3.1/meta/base", resource("oas-3.1-meta-base.json"));
        return SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12, b -> b.schemas(schemas))
                .getSchema(SchemaLocation.of(OAS_BASE_ID));
    }

    private static String resource(String name) {
        try (InputStream in = OpenApiDocumentTest.class.getResourceAsStream("/openapi/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<String> violations(JsonNode document) {
        List<String> messages = new ArrayList<>();
        for (Error e : OAS.validate(document)) {
            messages.add(e.getInstanceLocation() + ": " + e.getMessage());
        }
        return messages;
    }

    static void assertValidOpenApi31(JsonNode document) {
        assertThat(violations(document)).as("OpenAPI 3.1 violations in %s", document).isEmpty();
        assertThat(document.path("openapi").asString()).startsWith("3.1.");
    }

    /** Every tool is a POST operation with its input schema as request body and its output schema as 200 response. */
    static void assertMatchesRegistry(JsonNode document, McpServer server) {
        JsonNode paths = document.path("paths");
        List<String> toolPaths = new ArrayList<>();
        paths.propertyNames().forEach(p -> {
            if (p.startsWith("/rest/tools/")) {
                toolPaths.add(p);
            }
        });
        assertThat(toolPaths).containsExactlyElementsOf(server.tools().stream().map(t -> "/rest/tools/" + t.name()).toList());
        for (ToolDefinition tool : server.tools()) {
            JsonNode op = paths.path("/rest/tools/" + tool.name()).path("post");
            assertThat(op.path("operationId").asString()).isEqualTo(tool.name());
            if (tool.description() != null) {
                assertThat(op.path("description").asString()).isEqualTo(tool.description());
            }
            JsonNode input = op.path("requestBody").path("content").path("application/json").path("schema");
            assertThat(withoutId(input)).as("input schema of %s", tool.name()).isEqualTo(tool.inputSchema());
            JsonNode ok = op.path("responses").path("200").path("content").path("application/json").path("schema");
            if (tool.outputSchema() != null) {
                assertThat(withoutId(ok)).as("output schema of %s", tool.name()).isEqualTo(tool.outputSchema());
            } else {
                assertThat(ok.path("type").asString()).isEqualTo("array");
            }
            for (String status : List.of("404", "422", "501")) {
                assertThat(op.path("responses").has(status)).as("%s documents %s", tool.name(), status).isTrue();
            }
        }
        assertThat(paths.path("/rest/resources").path("get").path("parameters").get(0).path("name").asString())
                .isEqualTo("uri");
    }

    private static JsonNode withoutId(JsonNode schema) {
        if (!schema.has("$id")) {
            return schema;
        }
        ObjectNode copy = ((ObjectNode) schema).deepCopy();
        copy.remove("$id");
        return copy;
    }

    @Test
    void theServedDocumentIsValidOpenApi31AndMatchesTheRegistry() throws Exception {
        McpServer server = RestFacadeTest.server();
        try (HttpServerTransport transport = HttpServerTransport.builder(server).port(0).restFacade(true)
                .route("GET", "/people/{id}", "One person by id, as plain REST.", r -> RouteResponse.json(r.pathVariables()))
                .route("GET", "/undocumented", r -> RouteResponse.json(Map.of()))
                .build().start()) {
            JsonNode document = fetch(transport);
            assertValidOpenApi31(document);
            assertMatchesRegistry(document, server);
            assertThat(document.path("info").path("title").asString()).isEqualTo("people");
            assertThat(document.path("info").path("version").asString()).isEqualTo("2.0.0");
            JsonNode route = document.path("paths").path("/people/{id}").path("get");
            assertThat(route.path("description").asString()).isEqualTo("One person by id, as plain REST.");
            assertThat(route.path("parameters").get(0).path("name").asString()).isEqualTo("id");
            assertThat(route.path("parameters").get(0).path("in").asString()).isEqualTo("path");
            assertThat(document.path("paths").has("/undocumented")).isFalse();
        } finally {
            server.close();
        }
    }

    @Test
    void toolsAddedOrRemovedAtRunTimeShowInTheDocument() throws Exception {
        McpServer server = RestFacadeTest.server();
        try (HttpServerTransport transport = HttpServerTransport.builder(server).port(0).restFacade(true).build().start()) {
            assertThat(fetch(transport).path("paths").has("/rest/tools/shout")).isTrue();

            assertThat(server.removeTool("shout")).isTrue();
            server.addTool(ToolSpec.builder("paginate").description("Pages with nested records.")
                    .handler((ctx, args) -> CallToolResult.text("[]")).output(Page.class).build());
            JsonNode changed = fetch(transport);
            assertValidOpenApi31(changed);
            assertMatchesRegistry(changed, server);
            assertThat(changed.path("paths").has("/rest/tools/shout")).isFalse();
            assertThat(changed.path("paths").has("/rest/tools/paginate")).isTrue();
        } finally {
            server.close();
        }
    }

    @Test
    void theDocumentIsBuiltOncePerChangeOfTheTools() {
        McpServer server = RestFacadeTest.server();
        try {
            OpenApiDocument document = new OpenApiDocument(server, List.of());
            byte[] first = document.bytes();
            assertThat(document.bytes()).isSameAs(first);
            server.removeTool("shout");
            byte[] second = document.bytes();
            assertThat(second).isNotSameAs(first);
            assertThat(new String(second, StandardCharsets.UTF_8)).doesNotContain("/rest/tools/shout");
            assertThat(document.bytes()).isSameAs(second);
        } finally {
            server.close();
        }
    }

    @Test
    void schemasWithReferencesOfTheirOwnGetAnIdSoTheyResolveWithinThemselves() {
        ObjectNode recursive = Json.mapper().readValue("""
                {"type":"object","properties":{"next":{"$ref":"#/$defs/node"}},"$defs":{"node":{"type":"object"}}}""",
                ObjectNode.class);
        JsonNode placed = OpenApiDocument.standalone(recursive, "urn:tern:tool:x:input");
        assertThat(placed.path("$id").asString()).isEqualTo("urn:tern:tool:x:input");
        ObjectNode flat = Json.mapper().readValue("{\"type\":\"object\"}", ObjectNode.class);
        assertThat(OpenApiDocument.standalone(flat, "urn:x")).isSameAs(flat);
    }

    @Test
    void theCheckRejectsDocumentsThatAreNotOpenApi31() {
        McpServer server = RestFacadeTest.server();
        try {
            ObjectNode good = new OpenApiDocument(server, List.of()).build();
            assertThat(violations(good)).isEmpty();
            ObjectNode oldVersion = good.deepCopy().put("openapi", "3.0.3");
            assertThat(violations(oldVersion)).isNotEmpty();
            ObjectNode noInfo = good.deepCopy();
            noInfo.remove("info");
            assertThat(violations(noInfo)).isNotEmpty();
            ObjectNode badPath = good.deepCopy();
            ((ObjectNode) badPath.get("paths")).putObject("/x").putObject("post").put("responses", 42);
            assertThat(violations(badPath)).isNotEmpty();
            ObjectNode badSchema = good.deepCopy();
            ((ObjectNode) badSchema.path("paths").path("/rest/tools/shout").path("post").path("requestBody")
                    .path("content").path("application/json").path("schema")).put("minLength", "three");
            assertThat(violations(badSchema)).as("a Schema Object that is not a valid schema").isNotEmpty();
        } finally {
            server.close();
        }
    }

    private static JsonNode fetch(HttpServerTransport transport) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + transport.port() + "/openapi.json")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("content-type")).hasValue("application/json");
        return Json.mapper().readTree(r.body());
    }
}
