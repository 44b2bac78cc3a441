package dev.tern.server;

import dev.tern.protocol.JsonRpcFailure;
import dev.tern.protocol.JsonRpcResponse;
import dev.tern.protocol.JsonRpcResult;
import dev.tern.protocol.McpMeta;
import dev.tern.protocol.RequestId;
import dev.tern.server.observe.Era;
import dev.tern.server.observe.RequestObservation;

import tools.jackson.databind.JsonNode;

/**
 * What the request runner tells the server's observer, kept apart so that the runner's path with the observer off
 * reads no more than one comparison.
 */
final class Observed {
    private Observed() {
    }

    /** The request is about to run: the transport's observation, completed with what the envelope says. */
    static RequestObservation start(Exchange exchange) {
        RequestObservation o = exchange.host.outbound().observation(exchange.request.id());
        if (o == null) {
            return RequestRunner.UNOBSERVED;
        }
        String method = exchange.request.method();
        JsonNode params = exchange.params;
        String target = switch (method) {
            case "tools/call", "prompts/get" -> text(params.get("name"));
            default -> null;
        };
        o.parsed(System.nanoTime(), method, target)
                .protocolVersion(exchange.version.id())
                .era(exchange.modern() ? Era.STATELESS : Era.SESSION)
                .metaTraceContext(text(exchange.meta.get("traceparent")), text(exchange.meta.get("tracestate")),
                        text(exchange.meta.get("baggage")));
        if (method.startsWith("resources/")) {
            String uri = text(params.get("uri"));
            if (uri != null) {
                o.resourceUri(uri);
            }
        }
        switch (exchange.request.id()) {
            case RequestId.NumberId n -> o.requestId(n.value());
            case RequestId.StringId s -> o.requestId(s.value());
        }
        return o;
    }

    /** Sends the response and ends the observation with its outcome. */
    static void respond(Exchange exchange, JsonRpcResponse response) {
        RequestObservation o = exchange.observation;
        o.encodingStarted(System.nanoTime());
        exchange.responder.accept(response);
        long now = System.nanoTime();
        switch (response) {
            case null -> o.end(now);
            case JsonRpcFailure f -> o.endError(now, f.error().code(), f.error().message());
            case JsonRpcResult r when r.result() != null && r.result().path("isError").asBoolean(false) ->
                    o.endToolError(now);
            default -> o.end(now);
        }
    }

    private static String text(JsonNode node) {
        return node != null && node.isString() ? node.stringValue() : null;
    }
}
