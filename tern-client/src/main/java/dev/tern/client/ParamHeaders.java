package dev.tern.client;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import tools.jackson.databind.JsonNode;

/**
 * 2026-07-28 {@code x-mcp-header}: tool parameters the client mirrors into {@code Mcp-Param-{name}} headers. A tool
 * whose annotations break the rules (not a token, duplicate, not a primitive, not reachable through
 * {@code properties} alone) is invalid and left out of {@code tools/list}.
 */
final class ParamHeaders {
    private static final BigInteger MAX_SAFE = BigInteger.valueOf((1L << 53) - 1);

    /** One annotated parameter: the header name and the chain of property names leading to it. */
    record Param(String header, List<String> path) {
    }

    private ParamHeaders() {
    }

    /** The annotated parameters of an input schema, or {@code null} when an annotation is invalid. */
    static List<Param> of(JsonNode inputSchema) {
        if (inputSchema == null) {
            return List.of();
        }
        List<Param> found = new ArrayList<>();
        if (!walk(inputSchema, new ArrayList<>(), true, found)) {
            return null;
        }
        Set<String> seen = new HashSet<>();
        for (Param p : found) {
            if (!seen.add(p.header().toLowerCase(Locale.ROOT))) {
                return null;
            }
        }
        return found;
    }

    /**
     * Walks every subschema; an annotation is valid only where the walk got by {@code properties} steps alone.
     * Returns false at the first invalid one.
     */
    private static boolean walk(JsonNode schema, List<String> path, boolean reachable, List<Param> out) {
        if (schema.isArray()) {
            for (JsonNode item : schema) {
                if (!walk(item, path, false, out)) {
                    return false;
                }
            }
            return true;
        }
        if (!schema.isObject()) {
            return true;
        }
        JsonNode header = schema.get("x-mcp-header");
        if (header != null) {
            if (!reachable || path.isEmpty() || !header.isString() || !isToken(header.stringValue())) {
                return false;
            }
            String type = schema.path("type").asString("");
            if (!type.equals("string") && !type.equals("integer") && !type.equals("boolean")) {
                return false;
            }
            out.add(new Param(header.stringValue(), List.copyOf(path)));
        }
        for (Map.Entry<String, JsonNode> field : schema.properties()) {
            String key = field.getKey();
            if (key.equals("properties") && field.getValue().isObject()) {
                for (Map.Entry<String, JsonNode> p : field.getValue().properties()) {
                    path.add(p.getKey());
                    boolean ok = walk(p.getValue(), path, reachable, out);
                    path.remove(path.size() - 1);
                    if (!ok) {
                        return false;
                    }
                }
            } else if (field.getValue().isContainer() && !key.equals("x-mcp-header") && !key.equals("const")
                    && !key.equals("enum") && !key.equals("default") && !key.equals("examples")) {
                if (!walk(field.getValue(), path, false, out)) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Header names and values for the arguments of a call; a missing or null value leaves its header out. */
    static List<String> headers(List<Param> params, JsonNode arguments) {
        if (params.isEmpty() || arguments == null) {
            return List.of();
        }
        List<String> out = new ArrayList<>(params.size() * 2);
        for (Param p : params) {
            JsonNode value = arguments;
            for (String step : p.path()) {
                value = value.path(step);
            }
            if (value.isMissingNode() || value.isNull()) {
                continue;
            }
            String text;
            if (value.isIntegralNumber()) {
                if (value.bigIntegerValue().abs().compareTo(MAX_SAFE) > 0) {
                    continue;
                }
                text = value.bigIntegerValue().toString();
            } else if (value.isBoolean()) {
                text = Boolean.toString(value.booleanValue());
            } else if (value.isString()) {
                text = value.stringValue();
            } else {
                continue;
            }
            out.add("mcp-param-" + p.header());
            out.add(HeaderValues.encode(text));
        }
        return out;
    }

    private static boolean isToken(String s) {
        if (s.isEmpty()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ok = c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
                    || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
            if (!ok) {
                return false;
            }
        }
        return true;
    }
}
