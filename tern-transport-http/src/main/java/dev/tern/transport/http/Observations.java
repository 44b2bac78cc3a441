package dev.tern.transport.http;

import dev.tern.server.observe.McpObserver;

import io.netty.handler.codec.http.HttpHeaders;

/** What the HTTP transport tells the server's observer of an MCP POST, before the server sees the request. */
final class Observations {
    private Observations() {
    }

    /** Starts the observation of a POST whose body has arrived: its client, HTTP version, trace headers, principal. */
    static void start(McpObserver observer, HttpHeaders headers, HttpExchange exchange, String principal) {
        var o = observer.request(exchange.transport(), System.nanoTime())
                .clientAddress(exchange.clientAddress())
                .httpTraceContext(headers.get("traceparent"), headers.get("tracestate"), headers.get("baggage"));
        if (principal != null) {
            o.principal(principal);
        }
        exchange.observation(o);
    }
}
