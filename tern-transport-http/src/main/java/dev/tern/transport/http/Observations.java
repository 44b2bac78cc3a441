package dev.tern.transport.http;

import dev.tern.protocol.Decoded;
import dev.tern.protocol.JsonRpcNotification;
import dev.tern.protocol.McpMeta;
import dev.tern.server.observe.McpObserver;
import dev.tern.server.observe.RequestObservation;

import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;

/**
 * What the HTTP transport tells the server's observer of an MCP POST: its start when its head arrives, and its end
 * when the transport answers it without the server (refusals, notifications); a batch's members each on their own.
 */
final class Observations {
    private static final AsciiString TRACEPARENT = AsciiString.cached(McpMeta.TRACEPARENT);
    private static final AsciiString TRACESTATE = AsciiString.cached(McpMeta.TRACESTATE);
    private static final AsciiString BAGGAGE = AsciiString.cached(McpMeta.BAGGAGE);

    private Observations() {
    }

    /** Starts the observation of a POST whose head has arrived: its client, HTTP version, trace headers. */
    static void start(McpObserver observer, HttpHeaders headers, HttpExchange exchange) {
        long now = System.nanoTime();
        exchange.observation(request(observer, headers, exchange, now), now);
    }

    private static RequestObservation request(McpObserver observer, HttpHeaders headers, HttpExchange exchange,
            long received) {
        return observer.request(exchange.transport(), received)
                .clientAddress(exchange.clientAddress())
                .httpTraceContext(headers.get(TRACEPARENT), headers.get(TRACESTATE), headers.get(BAGGAGE));
    }

    /**
     * The POST is a batch its session runs: each member (request, notification, unreadable item) is an observation
     * of its own, with the POST's arrival, client, trace headers and principal; the batch itself is none.
     */
    static void batch(McpObserver observer, HttpHeaders headers, HttpExchange exchange, String principal) {
        if (exchange.observation() == null) {
            return;
        }
        long received = exchange.observedSince();
        exchange.observeMembers(() -> {
            RequestObservation o = request(observer, headers, exchange, received);
            return principal == null ? o : o.principal(principal);
        });
    }

    /** Observes the members of a batch the server does not: its notifications and the items that are no message. */
    static void batchMembers(HttpExchange exchange, Decoded.Batch batch, String sessionId) {
        for (Decoded item : batch.items()) {
            switch (item) {
                case Decoded.Invalid invalid ->
                        refused(exchange, invalid.failure().error().code(), invalid.failure().error().message());
                case Decoded.Single single when single.message() instanceof JsonRpcNotification n ->
                        notification(exchange, n.method(), sessionId);
                default -> {
                }
            }
        }
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

    /** The POST is not an MCP request or notification (a client's response): it is not reported. */
    static void unobserved(HttpExchange exchange) {
        exchange.takeObservation();
    }
}
