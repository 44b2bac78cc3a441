package dev.tern.bench.targets;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

import dev.tern.bench.Operation;
import dev.tern.bench.Outcome;
import dev.tern.client.ClientTracer;
import dev.tern.client.McpReply;
import dev.tern.protocol.ErrorCodes;
import dev.tern.protocol.JsonRpcError;
import dev.tern.protocol.McpMeta;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Requests a target sends with a tracer: each is a client span whose trace context goes in the request's
 * {@code params._meta}, ended with the request's outcome.
 */
final class TracedRequests {
    private static final JsonNode OK = McpWire.JSON.createObjectNode();
    private static final JsonNode TOOL_ERROR = McpWire.JSON.createObjectNode().put("isError", true);

    private TracedRequests() {
    }

    /**
     * Sends {@code body}, the JSON-RPC request for {@code operation}, with a span's context added, through {@code send};
     * {@code http} says whether it goes over HTTP (a POST or a WebSocket) or over stdio.
     */
    static CompletableFuture<Outcome> send(ClientTracer tracer, boolean http, Operation operation, String body,
            Function<String, CompletableFuture<Outcome>> send) {
        ClientTracer.Call call = tracer.start(McpWire.method(operation),
                operation.kind() == Operation.Kind.CALL_TOOL ? operation.name() : null, http);
        String traced;
        try {
            traced = withContext(body, call);
        } catch (RuntimeException e) {
            call.end(null, e);
            throw e;
        }
        return send.apply(traced).whenComplete((outcome, failure) -> {
            if (outcome == null) {
                call.end(null, failure);
            } else {
                end(call, outcome);
            }
        });
    }

    /** The request with the call's trace context among its {@code params._meta} keys. */
    static String withContext(String body, ClientTracer.Call call) {
        ObjectNode request = (ObjectNode) McpWire.JSON.readTree(body);
        JsonNode params = request.get("params");
        ObjectNode p = params instanceof ObjectNode o ? o : request.putObject("params");
        JsonNode meta = p.get(McpMeta.KEY);
        ObjectNode m = meta instanceof ObjectNode o ? o : p.putObject(McpMeta.KEY);
        call.inject(m::put);
        return McpWire.JSON.writeValueAsString(request);
    }

    private static void end(ClientTracer.Call call, Outcome outcome) {
        long now = System.nanoTime();
        switch (outcome.status()) {
            case OK -> call.end(new McpReply(OK, null, null, outcome.sentNanos(), outcome.firstByteNanos(), now), null);
            case TOOL_ERROR -> call.end(new McpReply(TOOL_ERROR, null, null, outcome.sentNanos(),
                    outcome.firstByteNanos(), now), null);
            case JSONRPC_ERROR -> call.end(new McpReply(null, error(outcome.detail()), null, outcome.sentNanos(),
                    outcome.firstByteNanos(), now), null);
            case TIMEOUT -> call.end(null, new TimeoutException(outcome.detail()));
            default -> call.end(null, new IOException(outcome.detail()));
        }
    }

    /** The error of a {@link Outcome.Status#JSONRPC_ERROR} outcome, whose detail is its code, a space and its message. */
    static JsonRpcError error(String detail) {
        int space = detail.indexOf(' ');
        String code = space < 0 ? detail : detail.substring(0, space);
        try {
            return JsonRpcError.of(Integer.parseInt(code), space < 0 ? "" : detail.substring(space + 1));
        } catch (NumberFormatException e) {
            return JsonRpcError.of(ErrorCodes.INTERNAL_ERROR, detail);
        }
    }
}
