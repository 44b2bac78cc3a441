package dev.tern.transport.http;

import dev.tern.server.observe.McpObserver;

import io.netty.handler.codec.http.HttpHeaders;

/**
 * What the HTTP transport tells the server's observer of an MCP POST: its start when its head arrives, and its end
 * when the transport answers it without the server (refusals, notifications).
 */
final class Observations {
    private Observations() {
    }

    /** Starts the observation of a POST whose head has arrived: its client, HTTP version, trace headers. */
    static void start(McpObserver observer, HttpHeaders headers, HttpExchange exchange) {
        exchange.observation(observer.request(exchange.transport(), System.nanoTime())
                .clientAddress(exchange.clientAddress())
                .httpTraceContext(headers.get("traceparent"), headers.get("tracestate"), headers.get("baggage")));
    }

    /** Who the POST was authenticated as, once it is known. */
    static void principal(HttpExchange exchange, String principal) {
        var o = exchange.observation();
        if (o != null && principal != null) {
            o.principal(principal);
        }
    }

    /** The transport refused the request with a JSON-RPC error before the server saw it. */
    static void refused(HttpExchange exchange, int code, String message) {
        var o = exchange.takeObservation();
        if (o != null) {
            o.endError(System.nanoTime(), code, message);
        }
    }

    /** A notification was accepted (202); {@code sessionId} is its legacy session's, or null. */
    static void notification(HttpExchange exchange, String method, String sessionId) {
        var o = exchange.takeObservation();
        if (o != null) {
            long now = System.nanoTime();
            o.parsed(now, method, null);
            if (sessionId != null) {
                o.session(sessionId);
            }
            o.end(now);
        }
    }

    /** The POST is not one MCP request or notification (a client's response, a batch): it is not reported. */
    static void unobserved(HttpExchange exchange) {
        exchange.takeObservation();
    }
}
