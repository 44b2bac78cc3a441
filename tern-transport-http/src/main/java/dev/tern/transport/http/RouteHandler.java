package dev.tern.transport.http;

/**
 * Serves a plain HTTP route mounted with {@link HttpServerTransport.Builder#route}. It runs on a virtual thread of its
 * own, as MCP tool calls do, so it may block.
 */
@FunctionalInterface
public interface RouteHandler {
    /**
     * Answers one request. An exception becomes a 500 problem response (the exception is logged, not sent).
     */
    RouteResponse handle(RouteRequest request) throws Exception;
}
