package dev.tern.transport.http;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.tern.protocol.JsonRpcRequest;
import dev.tern.protocol.model.ToolDefinition;
import dev.tern.server.McpServer;

import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;
import tools.jackson.databind.JsonNode;

/**
 * 2026-07-28: the headers that mirror the body ({@code MCP-Protocol-Version}, {@code Mcp-Method}, {@code Mcp-Name},
 * {@code Mcp-Param-*}) must be present and agree with it, after decoding the {@code =?base64?…?=} sentinel.
 */
final class HeaderCheck {
    // AsciiString names: Netty's headers hash them once, not on every look-up.
    static final AsciiString PROTOCOL_VERSION = AsciiString.cached("mcp-protocol-version");
    static final AsciiString METHOD = AsciiString.cached("mcp-method");
    static final AsciiString NAME = AsciiString.cached("mcp-name");
    static final String PARAM_PREFIX = "mcp-param-";

    private static final int MAX_CACHED_TOOLS = 4096;

    /** The {@code x-mcp-header} parameters of each tool, found once per tool (a replaced tool is a new instance). */
    private final Map<String, HeaderParams> paramsByTool = new ConcurrentHashMap<>();

    private record HeaderParams(ToolDefinition tool, List<Map.Entry<String, List<String>>> params) {
    }

    /** Returns why the headers disagree with the request, or {@code null} when they agree. */
    String mismatch(HttpHeaders headers, JsonRpcRequest request, McpServer server) {
        String method = headers.get(METHOD);
        if (method == null) {
            return "Header mismatch: Mcp-Method header is required";
        }
        if (!method.equals(request.method())) {
            return "Header mismatch: Mcp-Method header value '" + method + "' does not match body value '" + request.method() + "'";
        }
        String nameField = switch (request.method()) {
            case "tools/call", "prompts/get" -> "name";
            case "resources/read" -> "uri";
            case "tasks/get", "tasks/update", "tasks/cancel" -> "taskId";
            default -> null;
        };
        if (nameField != null) {
            JsonNode bodyValue = request.params() == null ? null : request.params().get(nameField);
            String header = headers.get(NAME);
            if (header == null) {
                return "Header mismatch: Mcp-Name header is required for " + request.method();
            }
            String decoded = decode(header.strip());
            if (decoded == null) {
                return "Header mismatch: Mcp-Name header is malformed";
            }
            if (bodyValue == null || !bodyValue.isString() || !bodyValue.stringValue().equals(decoded)) {
                return "Header mismatch: Mcp-Name header value '" + header + "' does not match body value '"
                        + (bodyValue == null ? "" : bodyValue.asString()) + "'";
            }
        }
        if (request.method().equals("tools/call") && request.params() != null) {
            JsonNode name = request.params().get("name");
            if (name != null && name.isString()) {
                ToolDefinition tool = server.findTool(name.stringValue()).orElse(null);
                if (tool != null) {
                    return paramMismatch(headers, headerParams(tool), request.params().path("arguments"));
                }
            }
        }
        return null;
    }

    private List<Map.Entry<String, List<String>>> headerParams(ToolDefinition tool) {
        HeaderParams known = paramsByTool.get(tool.name());
        if (known != null && known.tool() == tool) {
            return known.params();
        }
        List<Map.Entry<String, List<String>>> annotated = new ArrayList<>();
        collect(tool.inputSchema(), new ArrayList<>(), annotated);
        if (paramsByTool.size() >= MAX_CACHED_TOOLS) {
            paramsByTool.clear();
        }
        paramsByTool.put(tool.name(), new HeaderParams(tool, List.copyOf(annotated)));
        return annotated;
    }

    private static String paramMismatch(HttpHeaders headers, List<Map.Entry<String, List<String>>> annotated,
            JsonNode arguments) {
        for (Map.Entry<String, List<String>> a : annotated) {
            JsonNode value = arguments;
            for (String step : a.getValue()) {
                value = value.path(step);
            }
            String header = headers.get(PARAM_PREFIX + a.getKey());
            if (value.isMissingNode() || value.isNull()) {
                continue;
            }
            if (header == null) {
                return "Header mismatch: Mcp-Param-" + a.getKey() + " header is required";
            }
            String decoded = decode(header.strip());
            if (decoded == null || !sameValue(decoded, value)) {
                return "Header mismatch: Mcp-Param-" + a.getKey() + " header does not match the argument";
            }
        }
        return null;
    }

    private static void collect(JsonNode schema, List<String> path, List<Map.Entry<String, List<String>>> out) {
        JsonNode properties = schema.path("properties");
        for (Map.Entry<String, JsonNode> p : properties.properties()) {
            List<String> here = new ArrayList<>(path);
            here.add(p.getKey());
            JsonNode header = p.getValue().get("x-mcp-header");
            if (header != null && header.isString()) {
                out.add(Map.entry(header.stringValue().toLowerCase(java.util.Locale.ROOT), here));
            }
            collect(p.getValue(), here, out);
        }
    }

    private static boolean sameValue(String header, JsonNode value) {
        if (value.isIntegralNumber()) {
            try {
                return new java.math.BigDecimal(header).compareTo(value.decimalValue()) == 0;
            } catch (NumberFormatException e) {
                return false;
            }
        }
        if (value.isBoolean()) {
            return header.equals(Boolean.toString(value.booleanValue()));
        }
        return value.isString() && value.stringValue().equals(header);
    }

    /** The value of a header, Base64 sentinel decoded; {@code null} when malformed. */
    static String decode(String value) {
        if (value.startsWith("=?base64?") && value.endsWith("?=") && value.length() >= 11) {
            String encoded = value.substring(9, value.length() - 2);
            if (encoded.length() % 4 != 0) {
                return null;
            }
            try {
                return new String(Base64.getDecoder().decode(encoded), StandardCharsets.UTF_8);
            } catch (IllegalArgumentException e) {
                return null;
            }
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < 0x20 || c > 0x7E) {
                return null;
            }
        }
        return value;
    }
}
