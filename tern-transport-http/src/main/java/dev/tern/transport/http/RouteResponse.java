package dev.tern.transport.http;

import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

import dev.tern.protocol.Json;

import tools.jackson.databind.node.ObjectNode;

/** The answer of a plain HTTP route: a status, a media type and a body. Immutable. */
public final class RouteResponse {
    static final String JSON = "application/json";
    static final String PROBLEM_JSON = "application/problem+json";

    private final int status;
    private final String contentType;
    private final byte[] body;
    private final Map<String, String> headers;

    private RouteResponse(int status, String contentType, byte[] body) {
        this(status, contentType, body, Map.of());
    }

    private RouteResponse(int status, String contentType, byte[] body, Map<String, String> headers) {
        if (status < 200 || status > 599) {
            throw new IllegalArgumentException("status: " + status + " (expected: 200-599)");
        }
        this.status = status;
        this.contentType = Objects.requireNonNull(contentType, "contentType");
        this.body = body;
        this.headers = headers;
    }

    /**
     * This response with one more header, such as {@code Content-Security-Policy}; a header of the same name is
     * replaced. Headers the transport owns ({@code Content-Type}, {@code Content-Length}) cannot be set this way.
     */
    public RouteResponse withHeader(String name, String value) {
        String key = Objects.requireNonNull(name, "name").toLowerCase(Locale.ROOT);
        if (key.equals("content-type") || key.equals("content-length") || key.equals("transfer-encoding")) {
            throw new IllegalArgumentException("header: " + name + " (set by the transport)");
        }
        Map<String, String> h = new LinkedHashMap<>(headers);
        h.put(key, Objects.requireNonNull(value, "value"));
        return new RouteResponse(status, contentType, body, Collections.unmodifiableMap(h));
    }

    /** The headers added with {@link #withHeader}, by lower-case name. */
    public Map<String, String> headers() {
        return headers;
    }

    /** 200 with {@code value} as JSON, written by the same mapper as MCP results. */
    public static RouteResponse json(Object value) {
        return json(200, value);
    }

    /** {@code status} with {@code value} as JSON, written by the same mapper as MCP results. */
    public static RouteResponse json(int status, Object value) {
        return new RouteResponse(status, JSON, Json.mapper().writeValueAsBytes(value));
    }

    /** {@code status} with a body of the given media type. */
    public static RouteResponse of(int status, String contentType, byte[] body) {
        return new RouteResponse(status, contentType, body.clone());
    }

    /** An RFC 9457 problem ({@code application/problem+json}) with {@code about:blank} as its type. */
    public static RouteResponse problem(int status, String title, String detail) {
        return problem(status, "about:blank", title, detail, null);
    }

    /** 404 as an RFC 9457 problem. */
    public static RouteResponse notFound(String detail) {
        return problem(404, "Not Found", detail);
    }

    static RouteResponse problem(int status, String type, String title, String detail, ObjectNode extensions) {
        ObjectNode problem = Json.object();
        problem.put("type", type);
        problem.put("title", title);
        problem.put("status", status);
        if (detail != null) {
            problem.put("detail", detail);
        }
        if (extensions != null) {
            problem.setAll(extensions);
        }
        return new RouteResponse(status, PROBLEM_JSON, Json.mapper().writeValueAsBytes(problem));
    }

    static RouteResponse raw(int status, String contentType, byte[] body) {
        return new RouteResponse(status, contentType, body);
    }

    public int status() {
        return status;
    }

    public String contentType() {
        return contentType;
    }

    public byte[] body() {
        return body.clone();
    }

    byte[] bodyUncopied() {
        return body;
    }

    @Override
    public String toString() {
        return status + " " + contentType + " (" + body.length + " bytes): "
                + new String(body, 0, Math.min(body.length, 200), StandardCharsets.UTF_8);
    }
}
