package dev.tern.transport.http;

import java.util.List;
import java.util.Locale;

import dev.tern.protocol.Json;
import dev.tern.protocol.model.Implementation;
import dev.tern.protocol.model.ToolDefinition;
import dev.tern.server.McpServer;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The OpenAPI 3.1 document of the REST façade, built from the server's tools: each tool a {@code POST} operation whose
 * request body schema is the tool's input schema and whose 200 response schema is its output schema (JSON Schema
 * 2020-12 is the schema dialect of OpenAPI 3.1), the resources endpoint, and the plain routes mounted with a
 * description. Built once per change of the server's features and kept. Thread-safe.
 */
final class OpenApiDocument {
    static final String VERSION = "3.1.0";
    private static final String PROBLEM_REF = "#/components/schemas/Problem";

    private record Snapshot(long revision, byte[] bytes) {
    }

    private final McpServer server;
    private final List<HttpRoutes.Route> routes;
    private volatile Snapshot snapshot;

    /** {@code routes}: the plain routes; those with a description are documented. */
    OpenApiDocument(McpServer server, List<HttpRoutes.Route> routes) {
        this.server = server;
        this.routes = routes.stream().filter(r -> r.description() != null).toList();
    }

    /** The document as JSON, rebuilt only when the tools changed since it was last built. */
    byte[] bytes() {
        Snapshot s = snapshot;
        long revision = server.featuresRevision();
        if (s == null || s.revision() != revision) {
            s = new Snapshot(revision, Json.mapper().writeValueAsBytes(build()));
            snapshot = s;
        }
        return s.bytes();
    }

    ObjectNode build() {
        ObjectNode doc = Json.object();
        doc.put("openapi", VERSION);
        Implementation implementation = server.info();
        ObjectNode info = doc.putObject("info");
        info.put("title", implementation.title() != null ? implementation.title() : implementation.name());
        info.put("version", implementation.version());
        info.put("description", "The tools of the MCP server " + implementation.name() + " as REST operations, next "
                + "to its MCP endpoint: POST a tool's arguments as JSON to /rest/tools/{name}.");
        ObjectNode paths = doc.putObject("paths");
        for (HttpRoutes.Route route : routes) {
            ObjectNode item = paths.has(route.path().template()) ? (ObjectNode) paths.get(route.path().template())
                    : paths.putObject(route.path().template());
            item.set(route.method().toLowerCase(Locale.ROOT), routeOperation(route));
        }
        for (ToolDefinition tool : server.tools()) {
            paths.putObject(RestFacade.TOOLS + tool.name()).set("post", toolOperation(tool));
        }
        paths.putObject(RestFacade.RESOURCES).set("get", resourceOperation());
        doc.putObject("components").putObject("schemas").set("Problem", problemSchema());
        return doc;
    }

    private static ObjectNode routeOperation(HttpRoutes.Route route) {
        ObjectNode op = Json.object();
        op.put("description", route.description());
        List<String> variables = route.path().variableNames();
        if (!variables.isEmpty()) {
            ArrayNode parameters = op.putArray("parameters");
            for (String name : variables) {
                ObjectNode p = parameters.addObject();
                p.put("name", name);
                p.put("in", "path");
                p.put("required", true);
                p.putObject("schema").put("type", "string");
            }
        }
        if (!route.method().equals("GET") && !route.method().equals("DELETE")) {
            op.putObject("requestBody").putObject("content").putObject(RouteResponse.JSON).putObject("schema");
        }
        ObjectNode responses = op.putObject("responses");
        responses.putObject("200").put("description", "OK").putObject("content").putObject(RouteResponse.JSON)
                .putObject("schema");
        responses.set("default", problemResponse("An error"));
        return op;
    }

    private static ObjectNode toolOperation(ToolDefinition tool) {
        ObjectNode op = Json.object();
        op.put("operationId", tool.name());
        op.putArray("tags").add("tools");
        String summary = tool.title() != null ? tool.title()
                : tool.annotations() != null && tool.annotations().title() != null ? tool.annotations().title() : null;
        if (summary != null) {
            op.put("summary", summary);
        }
        if (tool.description() != null) {
            op.put("description", tool.description());
        }
        ObjectNode body = op.putObject("requestBody");
        body.put("required", true);
        body.putObject("content").putObject(RouteResponse.JSON).set("schema",
                standalone(tool.inputSchema(), "urn:tern:tool:" + tool.name() + ":input"));
        ObjectNode responses = op.putObject("responses");
        ObjectNode ok = responses.putObject("200");
        if (tool.outputSchema() != null) {
            ok.put("description", "The tool's structured result");
            ok.putObject("content").putObject(RouteResponse.JSON).set("schema",
                    standalone(tool.outputSchema(), "urn:tern:tool:" + tool.name() + ":output"));
        } else {
            ok.put("description", "The tool's result as MCP content blocks");
            ObjectNode array = ok.putObject("content").putObject(RouteResponse.JSON).putObject("schema");
            array.put("type", "array");
            ObjectNode block = array.putObject("items");
            block.put("type", "object");
            block.putArray("required").add("type");
        }
        responses.set("400", problemResponse("The body is not a JSON object"));
        responses.set("404", problemResponse("No such tool"));
        responses.set("422", problemResponse("The arguments break the input schema, or the tool reported an error"));
        responses.set("501", problemResponse("The tool needs an MCP client (elicitation, sampling, roots or tasks)"));
        responses.set("500", problemResponse("The call failed or timed out"));
        return op;
    }

    private static ObjectNode resourceOperation() {
        ObjectNode op = Json.object();
        op.put("operationId", "readResource");
        op.put("summary", "Read a resource");
        op.put("description", "The contents of the MCP resource at uri: text in its media type, a blob decoded; "
                + "a resource with several contents answers the resources/read result as JSON.");
        ObjectNode uri = op.putArray("parameters").addObject();
        uri.put("name", "uri");
        uri.put("in", "query");
        uri.put("required", true);
        uri.put("description", "The resource's URI, e.g. one a resource template produces");
        uri.putObject("schema").put("type", "string");
        ObjectNode responses = op.putObject("responses");
        responses.putObject("200").put("description", "The resource's contents").putObject("content")
                .putObject("*/*").putObject("schema");
        responses.set("400", problemResponse("The uri parameter is missing"));
        responses.set("404", problemResponse("No resource at that URI"));
        return op;
    }

    private static ObjectNode problemResponse(String description) {
        ObjectNode response = Json.object();
        response.put("description", description);
        response.putObject("content").putObject(RouteResponse.PROBLEM_JSON).putObject("schema").put("$ref", PROBLEM_REF);
        return response;
    }

    private static ObjectNode problemSchema() {
        ObjectNode schema = Json.object();
        schema.put("type", "object");
        schema.put("description", "An RFC 9457 problem");
        ObjectNode properties = schema.putObject("properties");
        properties.putObject("type").put("type", "string");
        properties.putObject("title").put("type", "string");
        properties.putObject("status").put("type", "integer");
        properties.putObject("detail").put("type", "string");
        properties.putObject("errors").put("type", "array").putObject("items").put("type", "string");
        properties.putObject("content").put("type", "array");
        return schema;
    }

    /**
     * A tool schema as placed in the document: one with references of its own ({@code #/$defs/...}) gets an
     * {@code $id} so they resolve within it, not against the document.
     */
    static JsonNode standalone(ObjectNode schema, String id) {
        if (schema.has("$id") || !hasReference(schema)) {
            return schema;
        }
        ObjectNode copy = Json.object();
        copy.put("$id", id);
        copy.setAll(schema);
        return copy;
    }

    private static boolean hasReference(JsonNode node) {
        if (node.isObject()) {
            if (node.has("$ref") || node.has("$dynamicRef")) {
                return true;
            }
            for (JsonNode child : node.values()) {
                if (hasReference(child)) {
                    return true;
                }
            }
        } else if (node.isArray()) {
            for (JsonNode child : node) {
                if (hasReference(child)) {
                    return true;
                }
            }
        }
        return false;
    }
}
