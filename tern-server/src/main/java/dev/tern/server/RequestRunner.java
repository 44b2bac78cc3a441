package dev.tern.server;

import java.lang.System.Logger.Level;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import dev.tern.protocol.ErrorCodes;
import dev.tern.protocol.Json;
import dev.tern.protocol.JsonRpcError;
import dev.tern.protocol.JsonRpcFailure;
import dev.tern.protocol.JsonRpcRequest;
import dev.tern.protocol.JsonRpcResponse;
import dev.tern.protocol.JsonRpcResult;
import dev.tern.protocol.McpException;
import dev.tern.protocol.McpMeta;
import dev.tern.protocol.ProtocolRules;
import dev.tern.protocol.ProtocolVersion;
import dev.tern.protocol.model.Implementation;
import dev.tern.protocol.model.LoggingLevel;
import dev.tern.server.observe.McpObserver;
import dev.tern.server.observe.RequestObservation;
import dev.tern.server.observe.Transport;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Runs requests for any {@link RequestHost}: a connection's channel, or a lone 2026-07-28 request ({@link #serve}),
 * which needs no channel at all. Cheap methods (ping, lists, discovery) run on the calling thread. Tools, reads,
 * prompts and completions run on a virtual thread with a deadline, except handlers that promised not to block
 * ({@link ToolSpec#nonBlocking()}), which run on the calling thread where the transport allows it.
 */
final class RequestRunner {
    private static final System.Logger LOG = System.getLogger("dev.tern.server");
    private static final AtomicLong ERROR_REFERENCE = new AtomicLong();
    /** The do-nothing observation every exchange holds while the server's observer is off. */
    static final RequestObservation UNOBSERVED = McpObserver.off().request(Transport.STDIO, 0);

    private final McpServer server;

    RequestRunner(McpServer server) {
        this.server = server;
    }

    /** Serves one 2026-07-28 request on its own: the response and the messages sent while serving it go to {@code outbound}. */
    StatelessRequest serve(JsonRpcRequest request, Outbound outbound) {
        StatelessHost host = new StatelessHost(outbound);
        Exchange exchange;
        try {
            JsonNode version = ProtocolRules.modernVersion(request);
            if (version == null) {
                throw ProtocolRules.notInitialized();
            }
            exchange = openModern(request, version, null, host, host);
        } catch (McpException e) {
            host.accept(refusal(outbound, request, e.toError()));
            return host;
        }
        Methods.Method method = Methods.find(true, request.method());
        if (method == null) {
            host.accept(refusal(outbound, request, McpException.methodNotFound(request.method()).toError()));
            return host;
        }
        host.exchange = exchange;
        dispatch(exchange, method);
        return host;
    }

    /** The response refusing a lone 2026-07-28 request before it runs, observed as such. */
    private JsonRpcFailure refusal(Outbound outbound, JsonRpcRequest request, JsonRpcError error) {
        if (server.observer().enabled()) {
            Observed.refused(outbound, request, null, error);
        }
        return new JsonRpcFailure(request.id(), error);
    }

    /**
     * Opens a 2026-07-28 request: the revision it names ({@code versionNode}) and what every such request carries in
     * its {@code _meta}. {@code channel} is the connection it came on, if any.
     */
    Exchange openModern(JsonRpcRequest request, JsonNode versionNode, DefaultServerChannel channel, RequestHost host,
            Consumer<JsonRpcResponse> responder) {
        String requested = versionNode.isString() ? versionNode.stringValue() : versionNode.toString();
        ProtocolVersion version = ProtocolVersion.parse(requested).filter(ProtocolVersion::isModern).orElse(null);
        if (version == null) {
            throw ProtocolRules.unsupportedVersion(requested);
        }
        JsonNode meta = request.params().get(McpMeta.KEY);
        JsonNode caps = meta.get(McpMeta.CLIENT_CAPABILITIES);
        if (!(caps instanceof ObjectNode capabilities)) {
            throw McpException.invalidParams("Invalid params: _meta \"" + McpMeta.CLIENT_CAPABILITIES
                    + "\" is required and must be an object");
        }
        Implementation clientInfo = null;
        JsonNode info = meta.get(McpMeta.CLIENT_INFO);
        if (info != null) {
            clientInfo = plainImplementation(info);
            if (clientInfo == null) {
                try {
                    clientInfo = Json.mapper().treeToValue(info, Implementation.class);
                } catch (JacksonException e) {
                    throw McpException.invalidParams("Invalid params: _meta \"" + McpMeta.CLIENT_INFO + "\" is malformed");
                }
            }
        }
        LoggingLevel level = null;
        JsonNode levelNode = meta.get(McpMeta.LOG_LEVEL);
        if (levelNode != null) {
            level = LoggingLevel.parse(levelNode.isString() ? levelNode.stringValue() : "")
                    .orElseThrow(() -> McpException.invalidParams("Invalid params: unknown log level " + levelNode));
        }
        return new Exchange(server, channel, host, request, version, capabilities, clientInfo, level, responder);
    }

    /**
     * The common shape of client info, read without data binding (it comes with every 2026-07-28 request): an object
     * of string members only. {@code null} for anything else, which data binding then reads or refuses.
     */
    private static Implementation plainImplementation(JsonNode info) {
        if (!(info instanceof ObjectNode object) || object.has("icons")) {
            return null;
        }
        String[] values = new String[5];
        for (var member : object.properties()) {
            int slot = switch (member.getKey()) {
                case "name" -> 0;
                case "title" -> 1;
                case "version" -> 2;
                case "description" -> 3;
                case "websiteUrl" -> 4;
                default -> -1;
            };
            if (slot < 0) {
                continue;
            }
            JsonNode value = member.getValue();
            if (value.isString()) {
                values[slot] = value.stringValue();
            } else if (!value.isNull()) {
                return null;
            }
        }
        return new Implementation(values[0], values[1], values[2], values[3], null, values[4]);
    }

    /** Runs an opened request on the thread its method and the transport call for. */
    void dispatch(Exchange exchange, Methods.Method method) {
        if (server.observer().enabled()) {
            exchange.observation = Observed.start(exchange);
        }
        if (method.inline()) {
            run(exchange, method);
        } else if (exchange.host.outbound().runsNonBlockingHandlersInline()
                && Methods.callsNonBlockingHandler(exchange, method)) {
            exchange.inline = true;
            run(exchange, method);
        } else {
            HandlerDeadlines.Armed deadline = server.deadlines().arm(() -> {
                exchange.timedOut = true;
                cancel(exchange, "timed out");
            });
            Thread.ofVirtual().name("tern-request-", 0).start(() -> {
                exchange.thread = Thread.currentThread();
                try {
                    if (!exchange.cancellation.isCancelled()) {
                        run(exchange, method);
                    } else {
                        ObjectNode expired = exchange.timedOut ? Methods.expiredBeforeStart(exchange, method) : null;
                        if (expired != null) {
                            complete(exchange, new JsonRpcResult(exchange.request.id(), decorate(exchange, expired)));
                        } else {
                            complete(exchange, cancelled(exchange));
                        }
                    }
                } finally {
                    deadline.disarm();
                    exchange.thread = null;
                    Thread.interrupted();
                }
            });
        }
    }

    private void run(Exchange exchange, Methods.Method method) {
        JsonRpcResponse response;
        Outbound outbound = exchange.host.outbound();
        boolean timed = outbound.timesHandlers() || exchange.observation != UNOBSERVED;
        if (timed) {
            exchange.handlerStarted = System.nanoTime();
        }
        try (RequestObservation.Scope ignored = exchange.observation.handlerStarted(exchange.handlerStarted)) {
            ObjectNode result = method.handle(exchange);
            response = result == null ? null : new JsonRpcResult(exchange.request.id(), decorate(exchange, result));
        } catch (InputRequiredSignal signal) {
            response = new JsonRpcResult(exchange.request.id(), inputRequired(exchange, signal));
        } catch (McpException e) {
            response = new JsonRpcFailure(exchange.request.id(), e.toError());
        } catch (Throwable t) {
            response = failure(exchange, t);
        }
        if (timed) {
            exchange.handlerEnded = System.nanoTime();
            exchange.observation.handlerEnded(exchange.handlerEnded);
        }
        if (response != null || method != Methods.LISTEN) {
            complete(exchange, response);
        }
    }

    private JsonRpcResponse failure(Exchange exchange, Throwable t) {
        if (exchange.timedOut) {
            return new JsonRpcFailure(exchange.request.id(), JsonRpcError.of(ErrorCodes.INTERNAL_ERROR,
                    "Request timed out after " + server.config().handlerTimeout()));
        }
        if (exchange.cancellation.isCancelled() || t instanceof CancellationException) {
            return cancelled(exchange);
        }
        if (t instanceof StoreUnavailableException unavailable) {
            LOG.log(Level.DEBUG, "Request {0} failed: {1}", exchange.request.method(), unavailable.getMessage());
            exchange.host.outbound().storeUnavailable(exchange.request.id());
            return new JsonRpcFailure(exchange.request.id(), JsonRpcError.of(ErrorCodes.INTERNAL_ERROR,
                    "Service unavailable: the shared store cannot be reached, retry shortly"));
        }
        if (t instanceof Error e && !(t instanceof StackOverflowError) && !(t instanceof OutOfMemoryError)) {
            LOG.log(Level.ERROR, "Fatal error serving " + exchange.request.method(), e);
        }
        long reference = ERROR_REFERENCE.incrementAndGet();
        LOG.log(Level.WARNING, "Request " + exchange.request.method() + " failed (reference " + reference + ")", t);
        return new JsonRpcFailure(exchange.request.id(), JsonRpcError.of(ErrorCodes.INTERNAL_ERROR,
                "Internal error (reference " + reference + ")"));
    }

    private static JsonRpcFailure cancelled(Exchange exchange) {
        return new JsonRpcFailure(exchange.request.id(), JsonRpcError.of(ErrorCodes.INTERNAL_ERROR, "Request cancelled"));
    }

    private static void complete(Exchange exchange, JsonRpcResponse response) {
        exchange.finish();
        exchange.host.ended(exchange);
        if (!exchange.suppressed) {
            if (response != null && exchange.handlerStarted != 0) {
                exchange.host.outbound().served(exchange.request.id(), exchange.handlerStarted, exchange.handlerEnded);
            }
            if (exchange.observation == UNOBSERVED) {
                exchange.responder.accept(response);
            } else {
                Observed.respond(exchange, response);
            }
        } else {
            exchange.observation.endCancelled(System.nanoTime(), exchange.cancellation.reason());
            if (exchange.responder instanceof DefaultServerChannel.BatchCollector) {
                exchange.responder.accept(null);
            }
        }
        exchange.host.answered();
    }

    /** Cancels a running request: its handler sees the cancellation and, on a thread of its own, an interrupt. */
    static void cancel(Exchange exchange, String reason) {
        if (exchange.cancellation.cancel(reason)) {
            Thread t = exchange.thread;
            if (t != null) {
                t.interrupt();
            }
        }
    }

    /** Adds what 2026-07-28 results carry: resultType, cache hints, serverInfo. */
    private ObjectNode decorate(Exchange exchange, ObjectNode result) {
        if (!exchange.modern()) {
            return result;
        }
        if (!result.has("resultType")) {
            result.put("resultType", "complete");
        }
        if (exchange.cachePolicy != null) {
            ResultCache.hint(exchange, result);
        } else if (Methods.isCacheable(exchange.request.method()) && !result.has("ttlMs")) {
            boolean read = exchange.request.method().equals("resources/read");
            boolean retry = exchange.params.has("inputResponses") || exchange.params.has("requestState");
            result.put("ttlMs", read || retry ? server.config().readTtlMs() : server.config().listTtlMs());
            result.put("cacheScope", server.config().cacheScope());
        }
        JsonNode meta = result.get(McpMeta.KEY);
        if (meta == null) {
            result.set(McpMeta.KEY, server.serverInfoMeta());
        } else if (meta instanceof ObjectNode m && !m.has(McpMeta.SERVER_INFO)) {
            m.set(McpMeta.SERVER_INFO, server.serverInfoMeta().get(McpMeta.SERVER_INFO));
        }
        return result;
    }

    private ObjectNode inputRequired(Exchange exchange, InputRequiredSignal signal) {
        ObjectNode result = Json.object();
        result.put("resultType", "input_required");
        result.set(McpMeta.KEY, server.serverInfoMeta());
        ObjectNode requests = result.putObject("inputRequests");
        signal.inputRequests.forEach(requests::set);
        ObjectNode answers = exchange.answers != null ? exchange.answers : Json.object();
        String binding = RequestStateSealer.binding(exchange.request.method(), exchange.params);
        result.put("requestState", server.sealer().seal(binding, answers));
        return result;
    }
}
