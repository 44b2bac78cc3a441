package dev.tern.server;

import java.lang.System.Logger.Level;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import dev.tern.protocol.ErrorCodes;
import dev.tern.protocol.Json;
import dev.tern.protocol.JsonRpcMessage;
import dev.tern.protocol.JsonRpcRequest;
import dev.tern.protocol.McpException;
import dev.tern.protocol.ProtocolVersion;
import dev.tern.protocol.RequestId;
import dev.tern.protocol.model.ReadResourceResult;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import org.jspecify.annotations.Nullable;

/**
 * Tool calls and resource reads made outside any MCP session (a REST façade, an in-process caller). They take the
 * path of {@code tools/call} and {@code resources/read}: the same registry, argument validation and handlers, on a
 * virtual thread of their own with the handler deadline, or, for a handler that promised never to block
 * ({@link ToolSpec#nonBlocking()}), on the calling thread before the call returns. The handler sees a stateless
 * 2026-07-28 request from a client that declared no capabilities, so asking the client for anything fails at once
 * instead of waiting. Results of cacheable features are served from and kept in the server's result cache under the
 * keys a 2026-07-28 {@code tools/call} or {@code resources/read} of the same principal uses.
 * Thread-safe.
 */
final class DirectCalls {
    private static final System.Logger LOG = System.getLogger("dev.tern.server");
    private static final AtomicLong ERROR_REFERENCE = new AtomicLong();

    /** What a call does once its exchange is open, on its own thread. */
    private interface Body {
        CallOutcome run(Exchange exchange) throws Exception;
    }

    private final McpServer server;
    /** Where the messages of a direct call would go: it has no client, so anything sent to one is dropped. */
    private static final RequestHost NO_CLIENT = new NoClient(null, null);

    /** The host of a direct call: no client to send to, only who made the call (none: anonymous). */
    private record NoClient(@Nullable String principal, @Nullable Caller caller) implements RequestHost, Outbound {
        @Override
        public void send(JsonRpcMessage message, RequestId relatedTo) {
        }

        @Override
        public Outbound outbound() {
            return this;
        }

        @Override
        public void ended(Exchange exchange) {
        }

        @Override
        public boolean listening(Listens.Listen listen) {
            return false;
        }
    }

    private final AtomicLong ids = new AtomicLong();
    private final Set<Exchange> running = ConcurrentHashMap.newKeySet();

    DirectCalls(McpServer server) {
        this.server = server;
    }

    /**
     * {@code parsed}: whether a {@code structuredContent} the tool's value was serialized to is parsed back into a
     * tree, or left as the {@link Json#rawJson} node holding that JSON.
     */
    CompletableFuture<CallOutcome> callTool(String name, ObjectNode arguments, boolean parsed,
            @Nullable String principal, @Nullable Caller caller) {
        ObjectNode params = Json.object();
        params.put("name", name);
        params.set("arguments", arguments);
        ToolSpec tool = server.registry().tool(name);
        boolean inline = tool != null && tool.nonBlocking() && !server.results().shares(server.cachePolicy(tool));
        return start("tools/call", params, inline, host(principal, caller), e -> {
            if (tool == null) {
                return new CallOutcome.NotFound("Unknown tool: " + name);
            }
            if (tool.taskSupport() == TaskSupport.REQUIRED) {
                return new CallOutcome.NeedsClient("Tool " + name + " runs only as an MCP task");
            }
            List<String> violations = tool.validator().validate(arguments);
            if (!violations.isEmpty()) {
                return new CallOutcome.InvalidArguments(violations);
            }
            ObjectNode result = Methods.invokeToolCached(e, tool, arguments);
            JsonNode structured = result.get("structuredContent");
            if (parsed && structured != null) {
                result.set("structuredContent", Json.materialize(structured));
            }
            return new CallOutcome.Done(result);
        });
    }

    CompletableFuture<CallOutcome> readResource(String uri, @Nullable String principal, @Nullable Caller caller) {
        ObjectNode params = Json.object();
        params.put("uri", uri);
        FeatureRegistry.Match match = server.registry().findResource(uri).orElse(null);
        boolean inline = match != null && match.nonBlocking() && !server.results().shares(match.cache());
        return start("resources/read", params, inline, host(principal, caller), e -> {
            if (match == null) {
                return new CallOutcome.NotFound("Resource not found: " + uri);
            }
            ResultCache.Compute read = () -> {
                ReadResourceResult result = match.handler().read(e, uri, match.variables());
                return result == null || result.contents() == null || result.contents().isEmpty() ? null
                        : Json.mapper().valueToTree(result);
            };
            ObjectNode result = match.cache() == null ? read.get()
                    : server.results().serve(e, match.cache(), ResultCache.Kind.RESOURCE, uri, null, read);
            return result == null ? new CallOutcome.NotFound("Resource not found: " + uri) : new CallOutcome.Done(result);
        });
    }

    /** Cancels every call still running (the server is closing). */
    void cancelAll() {
        for (Exchange e : running) {
            cancel(e, "server closed");
        }
    }

    static RequestHost host(@Nullable String principal, @Nullable Caller caller) {
        String name = principal != null ? principal : caller == null ? null : caller.name();
        return name == null && caller == null ? NO_CLIENT : new NoClient(name, caller);
    }

    private CompletableFuture<CallOutcome> start(String method, ObjectNode params, boolean nonBlocking,
            RequestHost host, Body body) {
        CompletableFuture<CallOutcome> outcome = new CompletableFuture<>();
        JsonRpcRequest request = new JsonRpcRequest(RequestId.of(ids.incrementAndGet()), method, params);
        Exchange exchange = new Exchange(server, null, host, request, ProtocolVersion.V2026_07_28, Json.object(),
                null, null, response -> {
                });
        if (server.isClosed()) {
            outcome.complete(new CallOutcome.Failed("The server is closed"));
            return outcome;
        }
        if (nonBlocking) {
            exchange.inline = true;
            try {
                outcome.complete(run(exchange, body));
            } finally {
                exchange.finish();
            }
            return outcome;
        }
        HandlerDeadlines.Armed deadline = server.deadlines().arm(() -> {
            exchange.timedOut = true;
            cancel(exchange, "timed out");
        });
        running.add(exchange);
        outcome.whenComplete((result, failure) -> {
            if (outcome.isCancelled()) {
                cancel(exchange, "cancelled by the caller");
            }
        });
        Thread.ofVirtual().name("tern-call-", 0).start(() -> {
            exchange.thread = Thread.currentThread();
            try {
                outcome.complete(exchange.cancellation.isCancelled() ? cancelled(exchange) : run(exchange, body));
            } finally {
                deadline.disarm();
                exchange.thread = null;
                exchange.finish();
                running.remove(exchange);
                Thread.interrupted();
            }
        });
        return outcome;
    }

    private CallOutcome run(Exchange exchange, Body body) {
        try {
            return body.run(exchange);
        } catch (McpException e) {
            return switch (e.code()) {
                case ErrorCodes.INVALID_PARAMS -> new CallOutcome.InvalidArguments(List.of(e.getMessage()));
                case ErrorCodes.RESOURCE_NOT_FOUND -> new CallOutcome.NotFound(e.getMessage());
                case ErrorCodes.MISSING_CLIENT_CAPABILITY, ErrorCodes.URL_ELICITATION_REQUIRED -> new CallOutcome.NeedsClient(
                        e.getMessage() + " (a direct call has no client to ask)");
                default -> new CallOutcome.Failed(e.getMessage());
            };
        } catch (InputRequiredSignal signal) {
            return new CallOutcome.NeedsClient("The handler asked the client for input (a direct call has no client to ask)");
        } catch (Throwable t) {
            if (exchange.timedOut || exchange.cancellation.isCancelled() || t instanceof CancellationException
                    || t instanceof InterruptedException) {
                return cancelled(exchange);
            }
            long reference = ERROR_REFERENCE.incrementAndGet();
            LOG.log(Level.WARNING, exchange.request.method() + " failed (direct call, reference " + reference + ")", t);
            return new CallOutcome.Failed("Internal error (reference " + reference + ")");
        }
    }

    private CallOutcome cancelled(Exchange exchange) {
        if (exchange.timedOut) {
            return new CallOutcome.Failed("Timed out after " + server.config().handlerTimeout());
        }
        String reason = exchange.cancellation.reason();
        return new CallOutcome.Failed("Cancelled" + (reason == null ? "" : ": " + reason));
    }

    private static void cancel(Exchange exchange, String reason) {
        if (exchange.cancellation.cancel(reason)) {
            Thread t = exchange.thread;
            if (t != null) {
                t.interrupt();
            }
        }
    }
}
