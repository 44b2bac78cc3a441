package dev.tern.transport.http;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Pattern;

import dev.tern.protocol.CodecLimits;
import dev.tern.protocol.Json;
import dev.tern.server.CallOutcome;
import dev.tern.server.McpServer;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The REST façade over a server's registry: {@code POST /rest/tools/{name}} with the arguments as the JSON body,
 * {@code GET /rest/resources?uri=...}, and the OpenAPI 3.1 document at {@code /openapi.json}. Calls take the path of
 * {@code tools/call} and {@code resources/read} through {@link McpServer#callToolUnparsed} (a tool's value is written
 * from the JSON it was serialized to once) and {@link McpServer#readResource}.
 *
 * <p>Statuses: 200 with the tool's {@code structuredContent} (its {@code content} array when it has none); 400 for a
 * body that is not a JSON object; 404 for an unknown tool or resource; 422 for arguments that break the input schema
 * and for a tool that reports an error ({@code isError}); 501 for a tool that needs an MCP client (elicitation,
 * sampling, roots, tasks); 500 when the call fails or times out. Errors are RFC 9457 problems.
 */
final class RestFacade {
    static final String TOOLS = "/rest/tools/";
    static final String RESOURCES = "/rest/resources";
    static final String OPENAPI = "/openapi.json";

    static final String INVALID_BODY = "urn:tern:problem:invalid-body";
    static final String UNKNOWN_TOOL = "urn:tern:problem:unknown-tool";
    static final String INVALID_ARGUMENTS = "urn:tern:problem:invalid-arguments";
    static final String TOOL_ERROR = "urn:tern:problem:tool-error";
    static final String NEEDS_CLIENT = "urn:tern:problem:needs-mcp-client";
    static final String CALL_FAILED = "urn:tern:problem:call-failed";
    static final String RESOURCE_NOT_FOUND = "urn:tern:problem:resource-not-found";
    static final String INSUFFICIENT_SCOPE = "urn:tern:problem:insufficient-scope";

    private static final Pattern MEDIA_TYPE = Pattern.compile("[A-Za-z0-9!#$&^_.+-]+/[A-Za-z0-9!#$&^_.+-]+");

    private final McpServer server;
    private final JsonMapper mapper;
    private final OpenApiDocument openApi;
    /** Asks whether a caller holds a tool's or resource's scopes; {@code null} without authentication. */
    private final dev.tern.auth.ResourceServer auth;

    RestFacade(McpServer server, CodecLimits limits, OpenApiDocument openApi, dev.tern.auth.ResourceServer auth) {
        this.server = server;
        this.auth = auth;
        this.mapper = Json.newMapper(limits);
        this.openApi = openApi;
    }

    /** The façade's routes. */
    List<HttpRoutes.Route> routes() {
        return List.of(
                new HttpRoutes.Route("POST", PathTemplate.parse(TOOLS + "{name}"), null, this::callTool),
                new HttpRoutes.Route("GET", PathTemplate.parse(RESOURCES), null, this::readResource),
                new HttpRoutes.Route("GET", PathTemplate.parse(OPENAPI), null, this::openApi));
    }

    private void callTool(RouteRequest request, HttpExchange exchange) {
        String name = request.pathVariable("name");
        byte[] body = request.bodyUncopied();
        JsonNode arguments;
        try {
            arguments = body.length == 0 ? Json.object() : mapper.readTree(body);
        } catch (JacksonException malformed) {
            HttpRoutes.write(exchange, RouteResponse.problem(400, INVALID_BODY, "Invalid body",
                    "The body is not valid JSON: " + malformed.getOriginalMessage(), null));
            return;
        }
        if (!(arguments instanceof ObjectNode object)) {
            HttpRoutes.write(exchange, RouteResponse.problem(400, INVALID_BODY, "Invalid body",
                    "The body must be a JSON object holding the tool's arguments", null));
            return;
        }
        if (!permits(exchange, server.toolScopes(name))) {
            return;
        }
        CompletableFuture<CallOutcome> call = server.callToolUnparsed(name, object, caller(exchange));
        exchange.onClientGone(() -> call.cancel(false));
        call.thenAccept(outcome -> HttpRoutes.write(exchange, toolResponse(name, outcome)));
    }

    RouteResponse toolResponse(String name, CallOutcome outcome) {
        return switch (outcome) {
            case CallOutcome.Done done when done.isError() -> {
                ObjectNode extensions = Json.object();
                extensions.set("content", done.result().path("content"));
                yield RouteResponse.problem(422, TOOL_ERROR, "Tool error", text(done.result().path("content")), extensions);
            }
            case CallOutcome.Done done -> {
                boolean hasOutputSchema = server.findTool(name).map(t -> t.outputSchema() != null).orElse(false);
                JsonNode structured = done.result().get("structuredContent");
                yield RouteResponse.json(200, hasOutputSchema && structured != null ? structured
                        : done.result().path("content"));
            }
            case CallOutcome.NotFound notFound -> RouteResponse.problem(404, UNKNOWN_TOOL, "Unknown tool",
                    "No tool named " + name, null);
            case CallOutcome.InvalidArguments invalid -> {
                ObjectNode extensions = Json.object();
                ArrayNode errors = extensions.putArray("errors");
                invalid.violations().forEach(errors::add);
                yield RouteResponse.problem(422, INVALID_ARGUMENTS, "Invalid arguments",
                        "The arguments do not match the input schema of tool " + name, extensions);
            }
            case CallOutcome.NeedsClient needs -> RouteResponse.problem(501, NEEDS_CLIENT, "Needs an MCP client",
                    needs.message() + "; call this tool over MCP", null);
            case CallOutcome.Failed failed -> RouteResponse.problem(500, CALL_FAILED, "Tool call failed",
                    failed.message(), null);
        };
    }

    private void readResource(RouteRequest request, HttpExchange exchange) {
        String uri = request.queryParameter("uri");
        if (uri == null || uri.isEmpty()) {
            HttpRoutes.write(exchange, RouteResponse.problem(400, "about:blank", "Bad Request",
                    "The query parameter uri is required", null));
            return;
        }
        if (!permits(exchange, server.resourceScopes(uri))) {
            return;
        }
        CompletableFuture<CallOutcome> read = server.readResource(uri, caller(exchange));
        exchange.onClientGone(() -> read.cancel(false));
        read.thenAccept(outcome -> HttpRoutes.write(exchange, resourceResponse(uri, outcome)));
    }

    /** The authenticated caller of a request, as MCP handlers see theirs; {@code null} without authentication. */
    private dev.tern.server.Caller caller(HttpExchange exchange) {
        return auth == null || exchange.principal() == null ? null
                : new AuthCaller(exchange.principal(), auth);
    }

    /** Whether the caller holds {@code scopes}; otherwise it has been answered 403 {@code insufficient_scope}. */
    private boolean permits(HttpExchange exchange, java.util.Set<String> scopes) {
        dev.tern.auth.AuthOutcome.Challenge lacking = auth == null ? null
                : AuthGate.lacking(auth, exchange.principal(), scopes);
        if (lacking == null) {
            return true;
        }
        exchange.header(io.netty.handler.codec.http.HttpHeaderNames.WWW_AUTHENTICATE, lacking.wwwAuthenticate());
        HttpRoutes.write(exchange, RouteResponse.problem(403, INSUFFICIENT_SCOPE, "Insufficient scope",
                "The token lacks a scope this needs: " + String.join(" ", scopes), null));
        return false;
    }

    /** One content: its bytes as its own media type (text as UTF-8, a blob decoded). Several: the read result as JSON. */
    static RouteResponse resourceResponse(String uri, CallOutcome outcome) {
        return switch (outcome) {
            case CallOutcome.Done done -> {
                JsonNode contents = done.result().path("contents");
                if (contents.size() != 1) {
                    yield RouteResponse.json(200, done.result());
                }
                JsonNode content = contents.get(0);
                String mimeType = content.path("mimeType").asString("");
                if (content.has("blob")) {
                    byte[] bytes;
                    try {
                        bytes = Base64.getDecoder().decode(content.path("blob").asString(""));
                    } catch (IllegalArgumentException malformed) {
                        yield RouteResponse.problem(500, CALL_FAILED, "Resource read failed",
                                "The resource's blob is not valid base64", null);
                    }
                    yield RouteResponse.raw(200, MEDIA_TYPE.matcher(mimeType).matches() ? mimeType
                            : "application/octet-stream", bytes);
                }
                String type = MEDIA_TYPE.matcher(mimeType).matches() ? mimeType : "text/plain";
                if (type.startsWith("text/")) {
                    type += "; charset=utf-8";
                }
                yield RouteResponse.raw(200, type, content.path("text").asString("").getBytes(StandardCharsets.UTF_8));
            }
            case CallOutcome.NotFound notFound -> RouteResponse.problem(404, RESOURCE_NOT_FOUND, "Resource not found",
                    "No resource at " + uri, null);
            case CallOutcome.InvalidArguments invalid -> RouteResponse.problem(400, "about:blank", "Bad Request",
                    String.join("; ", invalid.violations()), null);
            case CallOutcome.NeedsClient needs -> RouteResponse.problem(501, NEEDS_CLIENT, "Needs an MCP client",
                    needs.message() + "; read this resource over MCP", null);
            case CallOutcome.Failed failed -> RouteResponse.problem(500, CALL_FAILED, "Resource read failed",
                    failed.message(), null);
        };
    }

    private void openApi(RouteRequest request, HttpExchange exchange) {
        HttpRoutes.write(exchange, RouteResponse.raw(200, RouteResponse.JSON, openApi.bytes()));
    }

    /** The text blocks of a tool result, joined; what a tool says about its error. */
    private static String text(JsonNode content) {
        StringBuilder text = new StringBuilder();
        for (JsonNode block : content) {
            if ("text".equals(block.path("type").asString(""))) {
                text.append(text.isEmpty() ? "" : "\n").append(block.path("text").asString(""));
            }
        }
        return text.isEmpty() ? "The tool reported an error" : text.toString();
    }
}
