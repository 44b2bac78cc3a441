package dev.tern.transport.http;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.QueryStringDecoder;

/**
 * The plain HTTP routes served next to the MCP endpoint on the same connections: those mounted with
 * {@link HttpServerTransport.Builder#route} and, when enabled, the REST façade. Every request to them gets the checks
 * every MCP request gets (Host, Origin, body limits, JSON Content-Type on bodies, 503 while draining) and counts in
 * flight like one. Answers are RFC 9457 problems when something is wrong. Immutable and thread-safe.
 */
final class HttpRoutes {
    private static final System.Logger LOG = System.getLogger("dev.tern.transport.http");
    private static final AtomicLong ERROR_REFERENCE = new AtomicLong();
    private static final Set<String> BODY_METHODS = Set.of("POST", "PUT", "PATCH");
    static final Set<String> METHODS = Set.of("GET", "POST", "PUT", "PATCH", "DELETE");
    static final byte[] NO_BODY = new byte[0];

    /** Serves a request whose checks passed; answers on the exchange, from any thread. */
    interface Dispatch {
        void serve(RouteRequest request, HttpExchange exchange);
    }

    /** A mounted route; {@code description} (may be null) also puts it in the OpenAPI document. */
    record Route(String method, PathTemplate path, String description, Dispatch dispatch) {
    }

    /** The routes mounted at a request's path, with the variables matched. */
    record PathMatch(List<Route> routes, Map<String, String> variables, QueryStringDecoder uri) {
        Route route(String method) {
            for (Route r : routes) {
                if (r.method().equals(method)) {
                    return r;
                }
            }
            return null;
        }

        String allowed() {
            StringBuilder allow = new StringBuilder();
            for (Route r : routes) {
                allow.append(allow.isEmpty() ? "" : ", ").append(r.method());
            }
            return allow.toString();
        }
    }

    /** A request that passed its checks and waits for its body, if it has one. */
    static final class Pending implements RequestDispatcher.BodyReader {
        private final Route route;
        private final PathMatch match;
        private final boolean wantsBody;
        private final McpEndpoint endpoint;

        private Pending(Route route, PathMatch match, boolean wantsBody, McpEndpoint endpoint) {
            this.route = route;
            this.match = match;
            this.wantsBody = wantsBody;
            this.endpoint = endpoint;
        }

        boolean wantsBody() {
            return wantsBody;
        }

        /** Serves the request now that its body is in, unless the server is draining or too busy (then 503). */
        @Override
        public void read(HttpRequest request, byte[] body, HttpExchange exchange) {
            if (!endpoint.admit(exchange)) {
                return;
            }
            route.dispatch().serve(new RouteRequest(route.method(), match.uri().path(), match.variables(),
                    match.uri().parameters(), request.headers(), body), exchange);
        }
    }

    private final Map<String, List<Route>> fixed;
    /** Routes with variables, grouped by template, in the order mounted; the first template that matches wins. */
    private final List<List<Route>> templated;
    private final List<Route> all;

    HttpRoutes(List<Route> routes) {
        Map<String, List<Route>> fixedPaths = new LinkedHashMap<>();
        Map<String, List<Route>> withVariables = new LinkedHashMap<>();
        for (Route r : routes) {
            (r.path().hasVariables() ? withVariables : fixedPaths)
                    .computeIfAbsent(r.path().template(), p -> new ArrayList<>()).add(r);
        }
        fixedPaths.replaceAll((p, list) -> List.copyOf(list));
        this.fixed = Map.copyOf(fixedPaths);
        this.templated = withVariables.values().stream().map(List::copyOf).toList();
        this.all = List.copyOf(routes);
    }

    /** The routes at the request's path, or {@code null} when none is mounted there (the request is not ours). */
    PathMatch match(HttpRequest request) {
        if (all.isEmpty()) {
            return null;
        }
        QueryStringDecoder uri = new QueryStringDecoder(request.uri());
        String rawPath = uri.rawPath();
        List<Route> atPath = fixed.get(rawPath);
        if (atPath != null) {
            return new PathMatch(atPath, Map.of(), uri);
        }
        // indexed: an iterator per request is garbage on the path of every templated route
        for (int i = 0; i < templated.size(); i++) {
            List<Route> group = templated.get(i);
            Map<String, String> variables = group.get(0).path().match(rawPath);
            if (variables != null) {
                return new PathMatch(group, variables, uri);
            }
        }
        return null;
    }

    /**
     * Checks a request to one of these routes before its body is read: answers it (and returns {@code null}) when it
     * is refused or is a CORS preflight.
     */
    Pending open(HttpRequest request, PathMatch match, HttpExchange exchange, HostCheck hosts, McpEndpoint endpoint) {
        HttpHeaders headers = request.headers();
        if (!hosts.hostAllowed(headers.get(HttpHeaderNames.HOST))) {
            write(exchange, RouteResponse.problem(403, "Forbidden", "Host header not allowed"));
            return null;
        }
        String origin = headers.get(HttpHeaderNames.ORIGIN);
        if (!hosts.originAllowed(origin)) {
            write(exchange, RouteResponse.problem(403, "Forbidden", "Origin not allowed"));
            return null;
        }
        if (origin != null) {
            exchange.header(HttpHeaderNames.ACCESS_CONTROL_ALLOW_ORIGIN, origin).header(HttpHeaderNames.VARY, HttpHeaderNames.ORIGIN);
        }
        String method = request.method().name();
        if (method.equals("OPTIONS")) {
            exchange.header(HttpHeaderNames.ACCESS_CONTROL_ALLOW_METHODS, match.allowed())
                    .header(HttpHeaderNames.ACCESS_CONTROL_ALLOW_HEADERS, "content-type, accept, authorization")
                    .header(HttpHeaderNames.ACCESS_CONTROL_MAX_AGE, 600);
            exchange.empty(HttpResponseStatus.NO_CONTENT);
            return null;
        }
        Route route = match.route(method);
        if (route == null) {
            exchange.header(HttpHeaderNames.ALLOW, match.allowed());
            write(exchange, RouteResponse.problem(405, "Method Not Allowed",
                    method + " is not served here (allowed: " + match.allowed() + ")"));
            return null;
        }
        boolean wantsBody = BODY_METHODS.contains(method);
        if (wantsBody) {
            if (!RequestDispatcher.isJson(headers.get(HttpHeaderNames.CONTENT_TYPE))) {
                write(exchange, RouteResponse.problem(415, "Unsupported Media Type", "The body must be application/json"));
                return null;
            }
        }
        return new Pending(route, match, wantsBody, endpoint);
    }

    /** A route served by blocking code: on a virtual thread of its own, as MCP tool calls are. */
    static Dispatch blocking(RouteHandler handler) {
        return (request, exchange) -> {
            Thread worker = Thread.ofVirtual().name("tern-route-", 0).start(() -> write(exchange, call(handler, request)));
            exchange.onClientGone(worker::interrupt);
        };
    }

    /** A route served by code that never blocks: on the thread that read the request (the connection's event loop). */
    static Dispatch nonBlocking(RouteHandler handler) {
        return (request, exchange) -> write(exchange, call(handler, request));
    }

    private static RouteResponse call(RouteHandler handler, RouteRequest request) {
        try {
            RouteResponse response = handler.handle(request);
            if (response == null) {
                throw new IllegalStateException("the route handler returned null");
            }
            return response;
        } catch (Exception | StackOverflowError failure) {
            long reference = ERROR_REFERENCE.incrementAndGet();
            LOG.log(Level.WARNING, request.method() + " " + request.path() + " failed (reference " + reference + ")", failure);
            return RouteResponse.problem(500, "Internal Server Error", "Internal error (reference " + reference + ")");
        }
    }

    static void write(HttpExchange exchange, RouteResponse response) {
        response.headers().forEach(exchange::header);
        exchange.respond(HttpResponseStatus.valueOf(response.status()), response.contentType(), response.bodyUncopied());
    }
}
