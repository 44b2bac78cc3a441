package dev.tern.transport.http;

import dev.tern.protocol.ErrorCodes;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.QueryStringDecoder;

/**
 * Sends each request the {@link RequestDecoder} hands on to what serves it: the health checks, the plain routes and
 * the REST façade ({@link HttpRoutes}), or the MCP and 2024-11-05 HTTP+SSE endpoints after their header checks.
 * A request with a body is dispatched on its head, so that a refusal costs no read of the body. One per transport,
 * shared by every event loop, so it holds no per-request state.
 */
final class RequestDispatcher {
    private static final String JSON = "application/json";
    private static final String MCP_ALLOWED_HEADERS = "content-type, accept, authorization, "
            + "mcp-session-id, mcp-protocol-version, mcp-method, mcp-name, last-event-id";

    /** Serves a request once its whole body has been read. */
    interface BodyReader {
        void read(HttpRequest head, byte[] body, HttpExchange exchange);
    }

    private final McpEndpoint endpoint;
    private final HttpRoutes routes;
    private final HostCheck hosts;
    private final String mcpPath;
    private final BodyReader mcpPost;
    private final BodyReader legacyPost;
    /** {@code null} when the WebSocket endpoint is off. */
    private final WebSocketEndpoint webSockets;
    /** The Strict-Transport-Security value sent on every response, or null. */
    private final String hsts;

    RequestDispatcher(McpEndpoint endpoint, HttpRoutes routes, HostCheck hosts, String mcpPath,
            WebSocketEndpoint webSockets, String hsts) {
        this.endpoint = endpoint;
        this.routes = routes;
        this.hosts = hosts;
        this.mcpPath = mcpPath;
        this.webSockets = webSockets;
        this.hsts = hsts;
        this.mcpPost = (head, body, exchange) -> endpoint.handlePost(head.headers(), body, exchange);
        this.legacyPost = (head, body, exchange) -> endpoint.legacySse().post(head.uri(), head.headers(), body,
                exchange, endpoint);
    }

    /**
     * Serves a request from its head: answers it on {@code exchange} and returns {@code null}, or returns what reads
     * its body (the decoder applies the size limit and the body timeout first).
     */
    BodyReader dispatch(HttpRequest request, HttpExchange exchange) {
        if (hsts != null) {
            exchange.header(HttpOptions.Tls.Hsts.HEADER, hsts);
        }
        String path = pathOf(request.uri());
        if (request instanceof Http2StreamCodec.ExtendedConnect) {
            if (webSockets == null || !path.equals(webSockets.path())) {
                endpoint.error(exchange, HttpResponseStatus.NOT_FOUND, null, ErrorCodes.INVALID_REQUEST,
                        "Not found: " + (webSockets == null ? "no WebSocket endpoint is served"
                                : "the WebSocket endpoint is " + webSockets.path()));
                return null;
            }
            return upgradeToWebSocket(request, exchange);
        }
        if (path.equals("/health") || path.equals("/health/live") || path.equals("/health/ready")) {
            boolean down = endpoint.draining() && !path.equals("/health/live");
            exchange.json(down ? HttpResponseStatus.SERVICE_UNAVAILABLE : HttpResponseStatus.OK,
                    McpEndpoint.health(endpoint.draining()));
            return null;
        }
        AuthGate auth = endpoint.auth();
        if (auth != null && auth.servesMetadata(path, request, exchange)) {
            return null;
        }
        boolean legacySse = endpoint.legacySse().serves(path);
        if (legacySse || path.equals(mcpPath)) {
            return mcp(request, path, legacySse, exchange);
        }
        if (webSockets != null && path.equals(webSockets.path())) {
            return upgradeToWebSocket(request, exchange);
        }
        HttpRoutes.PathMatch match = routes.match(request);
        if (match != null) {
            return route(request, match, exchange);
        }
        endpoint.error(exchange, HttpResponseStatus.NOT_FOUND, null, ErrorCodes.INVALID_REQUEST,
                "Not found: the MCP endpoint is " + mcpPath);
        return null;
    }

    /** Answers a request the decoder refuses (malformed, too large, too slow). */
    void reject(HttpExchange exchange, HttpResponseStatus status, String message) {
        endpoint.error(exchange, status, null, ErrorCodes.INVALID_REQUEST, message);
    }

    boolean draining() {
        return endpoint.draining();
    }

    private BodyReader route(HttpRequest request, HttpRoutes.PathMatch match, HttpExchange exchange) {
        AuthGate auth = endpoint.auth();
        if (auth != null && !request.method().equals(HttpMethod.OPTIONS)) {
            return auth.check(request, exchange, (r, e) -> authorizedRoute(r, match, e));
        }
        return authorizedRoute(request, match, exchange);
    }

    private BodyReader authorizedRoute(HttpRequest request, HttpRoutes.PathMatch match, HttpExchange exchange) {
        HttpRoutes.Pending pending = routes.open(request, match, exchange, hosts, endpoint);
        if (pending == null) {
            return null;
        }
        if (!pending.wantsBody()) {
            pending.read(request, HttpRoutes.NO_BODY, exchange);
            return null;
        }
        return pending;
    }

    /**
     * The WebSocket upgrade, with the MCP endpoint's Host and Origin checks (a foreign Origin is cross-site WebSocket
     * hijacking) and, when the server asks for tokens, the token checked as on every MCP request; whoever the
     * request's credentials name is the connection's principal for its whole life.
     */
    private BodyReader upgradeToWebSocket(HttpRequest request, HttpExchange exchange) {
        if (!hostAndOriginAllowed(request.headers(), exchange)) {
            return null;
        }
        AuthGate auth = endpoint.auth();
        if (auth != null) {
            return auth.check(request, exchange, this::authorizedUpgrade);
        }
        return authorizedUpgrade(request, exchange);
    }

    private BodyReader authorizedUpgrade(HttpRequest request, HttpExchange exchange) {
        if (endpoint.draining()) {
            endpoint.unavailable(exchange);
            return null;
        }
        webSockets.upgrade(request, exchange, endpoint.principal(request.headers(), exchange));
        return null;
    }

    /** Whether the Host and Origin headers name this server or an allowed origin; otherwise 403 is sent. */
    private boolean hostAndOriginAllowed(HttpHeaders headers, HttpExchange exchange) {
        if (!hosts.hostAllowed(headers.get(HttpHeaderNames.HOST))) {
            refuse(exchange, HttpResponseStatus.FORBIDDEN, "Forbidden: Host header not allowed");
            return false;
        }
        if (!hosts.originAllowed(headers.get(HttpHeaderNames.ORIGIN))) {
            refuse(exchange, HttpResponseStatus.FORBIDDEN, "Forbidden: Origin not allowed");
            return false;
        }
        return true;
    }

    private BodyReader mcp(HttpRequest request, String path, boolean legacySse, HttpExchange exchange) {
        HttpHeaders headers = request.headers();
        if (!legacySse && endpoint.observer().enabled() && request.method().equals(HttpMethod.POST)) {
            Observations.start(endpoint.observer(), headers, exchange);
        }
        if (!hostAndOriginAllowed(headers, exchange)) {
            return null;
        }
        String origin = headers.get(HttpHeaderNames.ORIGIN);
        if (origin != null) {
            exchange.header(HttpHeaderNames.ACCESS_CONTROL_ALLOW_ORIGIN, origin)
                    .header(HttpHeaderNames.VARY, HttpHeaderNames.ORIGIN)
                    .header(HttpHeaderNames.ACCESS_CONTROL_EXPOSE_HEADERS, McpEndpoint.SESSION_ID);
        }
        HttpMethod method = request.method();
        if (method.equals(HttpMethod.OPTIONS)) {
            exchange.header(HttpHeaderNames.ACCESS_CONTROL_ALLOW_METHODS, "POST, GET, DELETE")
                    .header(HttpHeaderNames.ACCESS_CONTROL_ALLOW_HEADERS, MCP_ALLOWED_HEADERS)
                    .header(HttpHeaderNames.ACCESS_CONTROL_MAX_AGE, 600);
            exchange.empty(HttpResponseStatus.NO_CONTENT);
            return null;
        }
        if (endpoint.draining()) {
            endpoint.unavailable(exchange);
            return null;
        }
        AuthGate auth = endpoint.auth();
        if (auth != null) {
            return auth.check(request, exchange, (r, e) -> authorizedMcp(r, path, legacySse, e));
        }
        return authorizedMcp(request, path, legacySse, exchange);
    }

    private BodyReader authorizedMcp(HttpRequest request, String path, boolean legacySse, HttpExchange exchange) {
        if (legacySse) {
            return legacySse(request, path, exchange);
        }
        HttpMethod method = request.method();
        HttpHeaders headers = request.headers();
        if (!method.equals(HttpMethod.POST)) {
            endpoint.handleWithoutBody(method, headers, exchange);
            return null;
        }
        if (!Encodings.readable(headers.get(HttpHeaderNames.CONTENT_TYPE))) {
            return refuse(exchange, HttpResponseStatus.UNSUPPORTED_MEDIA_TYPE, "Unsupported media type: the body must be "
                    + "application/json, application/cbor or application/vnd.msgpack");
        }
        if (!McpEndpoint.accepts(headers, "application/json") || !McpEndpoint.accepts(headers, "text/event-stream")) {
            return refuse(exchange, HttpResponseStatus.NOT_ACCEPTABLE,
                    "Not acceptable: Accept must list application/json and text/event-stream");
        }
        return mcpPost;
    }

    /** The deprecated HTTP+SSE transport: a GET opens the stream, messages are POSTed to the other path. */
    private BodyReader legacySse(HttpRequest request, String path, HttpExchange exchange) {
        HttpMethod method = request.method();
        HttpMethod allowed = endpoint.legacySse().isMessagesPath(path) ? HttpMethod.POST : HttpMethod.GET;
        if (!method.equals(allowed)) {
            exchange.header(HttpHeaderNames.ALLOW, allowed);
            return refuse(exchange, HttpResponseStatus.METHOD_NOT_ALLOWED,
                    "Method not allowed: open the SSE stream with GET, send messages with POST");
        }
        if (method.equals(HttpMethod.GET)) {
            endpoint.legacySse().open(request.headers(), exchange, endpoint);
            return null;
        }
        if (!isJson(request.headers().get(HttpHeaderNames.CONTENT_TYPE))) {
            return unsupportedMediaType(exchange);
        }
        return legacyPost;
    }

    private BodyReader unsupportedMediaType(HttpExchange exchange) {
        return refuse(exchange, HttpResponseStatus.UNSUPPORTED_MEDIA_TYPE,
                "Unsupported media type: the body must be application/json");
    }

    private BodyReader refuse(HttpExchange exchange, HttpResponseStatus status, String message) {
        endpoint.error(exchange, status, null, ErrorCodes.INVALID_REQUEST, message);
        return null;
    }

    /** Whether a Content-Type names {@code application/json} (any case, parameters and spaces around it ignored). */
    static boolean isJson(String contentType) {
        if (contentType == null) {
            return false;
        }
        int semicolon = contentType.indexOf(';');
        int end = semicolon < 0 ? contentType.length() : semicolon;
        int start = 0;
        while (start < end && Character.isWhitespace(contentType.charAt(start))) {
            start++;
        }
        while (end > start && Character.isWhitespace(contentType.charAt(end - 1))) {
            end--;
        }
        if (end - start != JSON.length()) {
            return false;
        }
        for (int i = 0; i < JSON.length(); i++) {
            char c = contentType.charAt(start + i);
            if ((c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c) != JSON.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** The decoded path of a request URI; the URI itself in the common case of a plain path. */
    private static String pathOf(String uri) {
        for (int i = 0; i < uri.length(); i++) {
            char c = uri.charAt(i);
            if (c == '?' || c == '%' || c == '#') {
                return new QueryStringDecoder(uri).path();
            }
        }
        return uri;
    }
}
