package dev.tern.bench.targets;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.tern.bench.Operation;
import dev.tern.bench.Outcome;
import dev.tern.protocol.McpMeta;

import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/** MCP messages for both eras: request bodies built once per operation, replies classified. */
final class McpWire {
    static final String MODERN_VERSION = "2026-07-28";
    static final String LEGACY_VERSION = "2025-11-25";
    static final ObjectMapper JSON = JsonMapper.builder().build();

    private final boolean modern;
    private final String version;
    private final Map<Operation, String[]> templates = new ConcurrentHashMap<>();

    McpWire(boolean modern) {
        this(modern, modern ? MODERN_VERSION : LEGACY_VERSION);
    }

    /** Legacy messages for the protocol version {@code initialize} negotiated. */
    McpWire(boolean modern, String version) {
        this.modern = modern;
        this.version = version;
    }

    /** The legacy era for the version an {@code initialize} result names (the one asked for if it names none). */
    static McpWire negotiated(JsonNode initializeResponse) {
        String v = initializeResponse == null ? ""
                : initializeResponse.path("result").path("protocolVersion").asString("");
        return new McpWire(false, v.isBlank() ? LEGACY_VERSION : v);
    }

    boolean modern() {
        return modern;
    }

    String version() {
        return version;
    }

    /** The JSON-RPC request for an operation with the given id. */
    String request(long id, Operation op) {
        String[] t = templates.computeIfAbsent(op, this::template);
        return t[0] + id + t[1];
    }

    static String method(Operation op) {
        return switch (op.kind()) {
            case CALL_TOOL -> "tools/call";
            case LIST_TOOLS -> "tools/list";
            case READ_RESOURCE -> "resources/read";
            case REST -> throw new IllegalArgumentException("an MCP target cannot send REST requests");
        };
    }

    private String[] template(Operation op) {
        ObjectNode params = JSON.createObjectNode();
        switch (op.kind()) {
            case CALL_TOOL -> {
                params.put("name", op.name());
                JsonNode args = op.arguments().isBlank() ? JSON.createObjectNode() : JSON.readTree(op.arguments());
                if (!args.isObject()) {
                    throw new IllegalArgumentException("arguments: " + op.arguments() + " (expected: a JSON object)");
                }
                params.set("arguments", args);
            }
            case READ_RESOURCE -> params.put("uri", op.name());
            default -> { }
        }
        return template(method(op), params);
    }

    String[] template(String method, ObjectNode params) {
        if (modern) {
            ObjectNode meta = params.putObject(McpMeta.KEY);
            meta.put(McpMeta.PROTOCOL_VERSION, MODERN_VERSION);
            meta.putObject(McpMeta.CLIENT_CAPABILITIES);
            meta.putObject(McpMeta.CLIENT_INFO).put("name", "tern-bench").put("version", "1");
        }
        String p = JSON.writeValueAsString(params);
        return new String[] {"{\"jsonrpc\":\"2.0\",\"id\":",
            ",\"method\":\"" + method + "\"" + (p.equals("{}") ? "" : ",\"params\":" + p) + "}"};
    }

    static String initialize() {
        ObjectNode params = JSON.createObjectNode();
        params.put("protocolVersion", LEGACY_VERSION);
        params.putObject("capabilities");
        params.putObject("clientInfo").put("name", "tern-bench").put("version", "1");
        ObjectNode r = JSON.createObjectNode();
        r.put("jsonrpc", "2.0").put("id", 0).put("method", "initialize").set("params", params);
        return JSON.writeValueAsString(r);
    }

    static final String INITIALIZED = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";

    /** The MCP name header value for an operation (2026-07-28 {@code Mcp-Name}), or null. */
    static String name(Operation op) {
        return switch (op.kind()) {
            case CALL_TOOL, READ_RESOURCE -> op.name();
            default -> null;
        };
    }

    /** Classifies one JSON-RPC response. */
    static Outcome classify(JsonNode message) {
        if (message == null || !message.isObject()) {
            return Outcome.failed(Outcome.Status.TRANSPORT, "not a JSON-RPC response");
        }
        JsonNode error = message.get("error");
        if (error != null) {
            return Outcome.failed(Outcome.Status.JSONRPC_ERROR,
                    error.path("code").asInt() + " " + error.path("message").asString(""));
        }
        JsonNode result = message.get("result");
        if (result == null) {
            return Outcome.failed(Outcome.Status.TRANSPORT, "neither result nor error: " + abbreviate(message));
        }
        if (result.path("isError").asBoolean(false)) {
            return Outcome.failed(Outcome.Status.TOOL_ERROR,
                    abbreviate(result.path("content").path(0).path("text").asString("isError")));
        }
        return Outcome.ok();
    }

    /** The JSON-RPC response in an HTTP reply: a JSON body, or the last response event of an SSE stream; or null. */
    static JsonNode response(dev.tern.client.http.HttpReply reply) {
        try {
            if ("text/event-stream".equals(reply.contentType())) {
                return lastSseResponse(reply.events());
            }
            String body = reply.bodyText();
            return body.isBlank() ? null : JSON.readTree(body);
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** Classifies an HTTP reply: a JSON body, or the last response event of an SSE stream. */
    static Outcome classifyHttp(dev.tern.client.http.HttpReply reply) {
        int status = reply.status();
        if (status == 200 && isPlainResult(reply.contentType(), reply.body())) {
            return Outcome.ok();
        }
        String body = reply.bodyText();
        JsonNode message = response(reply);
        if (status / 100 != 2) {
            if (message != null && message.has("error")) {
                return classify(message);
            }
            return Outcome.failed(Outcome.Status.HTTP_STATUS, "HTTP " + status + " " + abbreviate(body));
        }
        if (message == null) {
            return Outcome.failed(Outcome.Status.TRANSPORT, "HTTP " + status + " without a JSON-RPC response: "
                    + abbreviate(body));
        }
        return classify(message);
    }

    /**
     * True when a reply is a JSON body holding one JSON-RPC response with a result that is not a tool error: read
     * as tokens, without a tree or a string of the body, so the load generator spends as little of the shared CPU
     * on an MCP reply as on a REST one. Anything else goes the full way.
     */
    static boolean isPlainResult(String contentType, byte[] body) {
        if (!"application/json".equals(contentType)) {
            return false;
        }
        try (JsonParser p = JSON.createParser(body)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return false;
            }
            boolean result = false;
            for (String field = p.nextName(); field != null; field = p.nextName()) {
                JsonToken value = p.nextToken();
                if (field.equals("error")) {
                    return false;
                }
                if (field.equals("result")) {
                    if (value != JsonToken.START_OBJECT || result) {
                        return false;
                    }
                    result = true;
                    for (String member = p.nextName(); member != null; member = p.nextName()) {
                        JsonToken memberValue = p.nextToken();
                        if (member.equals("isError") && memberValue != JsonToken.VALUE_FALSE) {
                            return false;
                        }
                        p.skipChildren();
                    }
                } else {
                    p.skipChildren();
                }
            }
            return result && p.nextToken() == null;
        } catch (RuntimeException e) {
            return false;
        }
    }

    static JsonNode lastSseResponse(java.util.List<dev.tern.client.http.SseEvent> events) {
        JsonNode last = null;
        for (dev.tern.client.http.SseEvent event : events) {
            if (event.data() == null || event.data().isBlank()) {
                continue;
            }
            JsonNode n = JSON.readTree(event.data());
            if (n.has("id") && (n.has("result") || n.has("error"))) {
                last = n;
            }
        }
        return last;
    }

    static String abbreviate(Object o) {
        String s = String.valueOf(o).replace('\n', ' ');
        return s.length() > 200 ? s.substring(0, 197) + "..." : s;
    }
}
