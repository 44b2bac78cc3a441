package dev.tern.server;

import dev.tern.protocol.JsonRpcError;
import dev.tern.protocol.JsonRpcFailure;
import dev.tern.protocol.JsonRpcRequest;
import dev.tern.protocol.JsonRpcResponse;
import dev.tern.protocol.JsonRpcResult;
import dev.tern.protocol.McpMeta;
import dev.tern.protocol.ProtocolVersion;
import dev.tern.protocol.RequestId;
import dev.tern.server.observe.Era;
import dev.tern.server.observe.RequestObservation;

import tools.jackson.databind.JsonNode;

/**
 * What the request runner tells the server's observer, kept apart so that the runner's path with the observer off
 * reads no more than one comparison.
 */
final class Observed {
    /** The method name of what could not be read as a request of a method the server knows. */
    static final String UNKNOWN = "unknown";

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
        o.parsed(System.nanoTime(), method, target(method, params))
                .protocolVersion(exchange.version.id())
                .era(exchange.modern() ? Era.STATELESS : Era.SESSION)
                .metaTraceContext(text(exchange.meta.get(McpMeta.TRACEPARENT)),
                        text(exchange.meta.get(McpMeta.TRACESTATE)), text(exchange.meta.get(McpMeta.BAGGAGE)));
        if (method.startsWith("resources/")) {
            String uri = text(params.get("uri"));
            if (uri != null) {
                o.resourceUri(uri);
            }
        }
        requestId(o, exchange.request.id());
        return o;
    }

    /**
     * A request the server answers with {@code error} before running it (not initialized, unknown method, id in use):
     * the transport's observation of it, if any, ended with the error. A method the server does not know is named
     * {@code unknown}, so that clients cannot add metric series at will. Called before the error is sent.
     */
    static void refused(Outbound outbound, JsonRpcRequest request, ProtocolVersion version, JsonRpcError error) {
        RequestObservation o = outbound.observation(request.id());
        if (o == null) {
            return;
        }
        String method = request.method();
        boolean known = Methods.find(true, method) != null || Methods.find(false, method) != null;
        long now = System.nanoTime();
        o.parsed(now, known ? method : UNKNOWN, known ? target(method, request.params()) : null);
        requestId(o, request.id());
        if (version != null) {
            o.protocolVersion(version.id()).era(version.isModern() ? Era.STATELESS : Era.SESSION);
        }
        o.endError(now, error.code(), error.message());
    }

    /**
     * A message that is no request the server could read ({@code error}: bad JSON, an invalid request, a batch where
     * none is allowed), observed as a refusal of an unknown method when the transport observes it.
     */
    static void invalid(Outbound outbound, JsonRpcError error) {
        RequestObservation o = outbound.observation(null);
        if (o != null) {
            o.endError(System.nanoTime(), error.code(), error.message());
        }
    }

    /** A notification the server received, observed when the transport observes it (stdio; HTTP observes its own). */
    static void notification(Outbound outbound, String method, ProtocolVersion version) {
        RequestObservation o = outbound.observation(null);
        if (o != null) {
            long now = System.nanoTime();
            o.parsed(now, method, null);
            if (version != null) {
                o.protocolVersion(version.id()).era(version.isModern() ? Era.STATELESS : Era.SESSION);
            }
            o.end(now);
        }
    }

    private static String target(String method, JsonNode params) {
        return switch (method) {
            case "tools/call", "prompts/get" -> params == null ? null : text(params.get("name"));
            default -> null;
        };
    }

    private static void requestId(RequestObservation o, RequestId id) {
        switch (id) {
            case RequestId.NumberId n -> o.requestId(n.value());
            case RequestId.StringId s -> o.requestId(s.value());
        }
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
