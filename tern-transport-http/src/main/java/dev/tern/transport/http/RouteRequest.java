package dev.tern.transport.http;

import java.util.List;
import java.util.Map;

import io.netty.handler.codec.http.HttpHeaders;

/** One request to a plain HTTP route: its path variables, query, headers and body. Immutable. */
public final class RouteRequest {
    private final String method;
    private final String path;
    private final Map<String, String> pathVariables;
    private final Map<String, List<String>> query;
    private final HttpHeaders headers;
    private final byte[] body;

    RouteRequest(String method, String path, Map<String, String> pathVariables, Map<String, List<String>> query,
            HttpHeaders headers, byte[] body) {
        this.method = method;
        this.path = path;
        this.pathVariables = pathVariables;
        this.query = query;
        this.headers = headers;
        this.body = body;
    }

    /** The HTTP method, upper case. */
    public String method() {
        return method;
    }

    /** The request path, without the query. */
    public String path() {
        return path;
    }

    /** The values of the route's {@code {variables}}, percent-decoded. */
    public Map<String, String> pathVariables() {
        return pathVariables;
    }

    /** The value of one path variable, or {@code null} if the route has no such variable. */
    public String pathVariable(String name) {
        return pathVariables.get(name);
    }

    /** The query parameters, decoded, in order. */
    public Map<String, List<String>> query() {
        return query;
    }

    /** The first value of a query parameter, or {@code null} if absent. */
    public String queryParameter(String name) {
        List<String> values = query.get(name);
        return values == null || values.isEmpty() ? null : values.get(0);
    }

    /** The first value of a header (case-insensitive name), or {@code null} if absent. */
    public String header(String name) {
        return headers.get(name);
    }

    /** The request body; empty for methods without one. */
    public byte[] body() {
        return body.clone();
    }

    byte[] bodyUncopied() {
        return body;
    }
}
