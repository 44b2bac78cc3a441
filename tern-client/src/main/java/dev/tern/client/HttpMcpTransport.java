package dev.tern.client;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import dev.tern.client.http.HttpCall;
import dev.tern.client.http.HttpClientEngine;
import dev.tern.client.http.HttpReply;
import dev.tern.client.http.SseEvent;
import dev.tern.protocol.Decoded;
import dev.tern.protocol.ErrorCodes;
import dev.tern.protocol.JsonRpcCodec;
import dev.tern.protocol.JsonRpcError;
import dev.tern.protocol.JsonRpcFailure;
import dev.tern.protocol.JsonRpcMessage;
import dev.tern.protocol.JsonRpcNotification;
import dev.tern.protocol.JsonRpcRequest;
import dev.tern.protocol.JsonRpcResponse;
import dev.tern.protocol.JsonRpcResult;
import dev.tern.protocol.MessageCodec;
import dev.tern.protocol.WireFormat;
import dev.tern.protocol.ProtocolVersion;
import dev.tern.protocol.RequestId;

import tools.jackson.databind.JsonNode;

/**
 * Streamable HTTP: each message is a POST to the endpoint; the answer is JSON or an SSE stream of notifications
 * ending with the response. Legacy sessions add {@code Mcp-Session-Id}, modern requests the metadata headers.
 */
final class HttpMcpTransport implements McpTransport {
    private static final String ACCEPT = "application/json, text/event-stream";

    private final HttpClientEngine engine;
    private final boolean ownsEngine;
    private final JsonRpcCodec codec;
    /** What request bodies are written in, and answers in that format read with; JSON unless asked. */
    private final MessageCodec bodies;
    private final String accept;
    private final Consumer<JsonRpcNotification> notifications;
    private volatile String sessionId;
    private volatile ProtocolVersion sessionVersion;

    HttpMcpTransport(HttpClientEngine engine, boolean ownsEngine, JsonRpcCodec codec, WireFormat format,
            Consumer<JsonRpcNotification> notifications) {
        this.engine = engine;
        this.ownsEngine = ownsEngine;
        this.codec = codec;
        this.bodies = MessageCodec.of(format, codec);
        this.accept = format == WireFormat.JSON ? ACCEPT : format.mediaType() + ", " + ACCEPT;
        this.notifications = notifications;
    }

    @Override
    public boolean http() {
        return true;
    }

    @Override
    public CompletableFuture<McpReply> send(JsonRpcRequest request, ProtocolVersion version, List<String> extraHeaders) {
        HttpCall call = post(bodies.encode(request), version);
        if (version != null && version.isModern()) {
            call.header("mcp-method", request.method());
            String name = nameOf(request);
            if (name != null) {
                call.header("mcp-name", HeaderValues.encode(name));
            }
        }
        for (int i = 0; i + 1 < extraHeaders.size(); i += 2) {
            call.header(extraHeaders.get(i), extraHeaders.get(i + 1));
        }
        StreamedResponse streamed = new StreamedResponse(request.id());
        call.onEvent(streamed);
        CompletableFuture<HttpReply> http = engine.send(call);
        Answer answer = new Answer(http, request, version);
        http.whenComplete((reply, failure) -> {
            if (failure != null) {
                Throwable cause = McpClient.unwrap(failure);
                boolean asIs = cause instanceof java.util.concurrent.CancellationException
                        || cause instanceof java.util.concurrent.TimeoutException;
                answer.completeExceptionally(asIs ? cause : new McpClientException("no response to " + request.method() + " from " + engine.baseUri()
                                + ": " + cause.getMessage(), cause));
                return;
            }
            if (request.method().equals("initialize")) {
                String id = reply.header("mcp-session-id");
                if (id != null) {
                    sessionId = id;
                }
            }
            try {
                answer.complete(toReply(request, reply, streamed.response));
            } catch (RuntimeException e) {
                answer.completeExceptionally(e);
            }
        });
        return answer;
    }

    /**
     * The reply to one request. Cancelling it abandons the HTTP exchange, which in 2026-07-28 is itself the
     * cancellation; a legacy session is also sent {@code notifications/cancelled}.
     */
    private final class Answer extends CompletableFuture<McpReply> {
        private final CompletableFuture<HttpReply> http;
        private final JsonRpcRequest request;
        private final ProtocolVersion version;

        Answer(CompletableFuture<HttpReply> http, JsonRpcRequest request, ProtocolVersion version) {
            this.http = http;
            this.request = request;
            this.version = version;
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            boolean cancelled = super.cancel(mayInterruptIfRunning);
            if (cancelled) {
                http.cancel(mayInterruptIfRunning);
                if (version != null && !version.isModern()) {
                    tools.jackson.databind.node.ObjectNode params = dev.tern.protocol.Json.object();
                    switch (request.id()) {
                        case RequestId.NumberId n -> params.put("requestId", n.value());
                        case RequestId.StringId s -> params.put("requestId", s.value());
                    }
                    params.put("reason", "cancelled by the client");
                    HttpMcpTransport.this.notify(new JsonRpcNotification("notifications/cancelled", params), version);
                }
            }
            return cancelled;
        }
    }

    @Override
    public CompletableFuture<Void> notify(JsonRpcNotification notification, ProtocolVersion version) {
        return engine.send(post(bodies.encode(notification), version)).thenAccept(reply -> {
            if (reply.status() / 100 != 2) {
                throw new McpClientException("the server refused " + notification.method() + ": HTTP " + reply.status()
                        + " " + snippet(reply), reply.status(), null);
            }
        });
    }

    @Override
    public void legacySession(ProtocolVersion version) {
        sessionVersion = version;
    }

    @Override
    public void close() {
        String id = sessionId;
        sessionId = null;
        try {
            if (id != null) {
                HttpCall delete = HttpCall.delete(null).header("mcp-session-id", id);
                ProtocolVersion v = sessionVersion;
                if (v != null) {
                    delete.header("mcp-protocol-version", v.id());
                }
                try {
                    engine.send(delete).get(2, TimeUnit.SECONDS);
                } catch (Exception e) {
                    // the session expires on the server anyway
                }
            }
        } finally {
            if (ownsEngine) {
                engine.close();
            }
        }
    }

    private HttpCall post(byte[] body, ProtocolVersion version) {
        HttpCall call = HttpCall.post(null, bodies.format().mediaType(), body).header("accept", accept);
        if (version != null) {
            call.header("mcp-protocol-version", version.id());
            String id = sessionId;
            if (!version.isModern() && id != null) {
                call.header("mcp-session-id", id);
            }
        }
        return call;
    }

    private McpReply toReply(JsonRpcRequest request, HttpReply reply, JsonRpcResponse streamed) {
        JsonRpcResponse response = streamed;
        String type = reply.contentType();
        MessageCodec reader = "application/json".equals(type) ? codec
                : bodies.format().mediaType().equals(type) ? bodies : null;
        if (response == null && reader != null) {
            Decoded decoded = reader.decode(reply.body(), 0, reply.body().length);
            if (decoded instanceof Decoded.Single s && s.message() instanceof JsonRpcResponse r) {
                response = r;
            }
        }
        if (response == null) {
            String what = "text/event-stream".equals(type) ? "an event stream without a response"
                    : "HTTP " + reply.status() + (type == null ? "" : " " + type) + " " + snippet(reply);
            String hint = reply.status() == 404 ? " (no MCP endpoint at " + engine.baseUri() + ": check the URL's path)" : "";
            throw new McpClientException(request.method() + " got " + what + hint, reply.status(), null);
        }
        return switch (response) {
            case JsonRpcResult r -> new McpReply(r.result(), null, reply, reply.sentNanos(), reply.firstByteNanos(),
                    reply.completeNanos());
            case JsonRpcFailure f -> new McpReply(null, f.error(), reply, reply.sentNanos(), reply.firstByteNanos(),
                    reply.completeNanos());
        };
    }

    private static String nameOf(JsonRpcRequest request) {
        String field = switch (request.method()) {
            case "tools/call", "prompts/get" -> "name";
            case "resources/read" -> "uri";
            case "tasks/get", "tasks/update", "tasks/cancel" -> "taskId";
            default -> null;
        };
        if (field == null || request.params() == null) {
            return null;
        }
        JsonNode value = request.params().get(field);
        return value != null && value.isString() ? value.stringValue() : null;
    }

    private static String snippet(HttpReply reply) {
        String text = new String(reply.body(), 0, Math.min(reply.body().length, 300), StandardCharsets.UTF_8).strip();
        return text.isEmpty() ? "(empty body)" : text;
    }

    /** Reads the events of one POST's SSE stream: notifications go to the listener, the response is kept. */
    private final class StreamedResponse implements Consumer<SseEvent> {
        private final RequestId id;
        volatile JsonRpcResponse response;

        StreamedResponse(RequestId id) {
            this.id = id;
        }

        @Override
        public void accept(SseEvent event) {
            if (!event.event().equals("message") || event.data().isEmpty()) {
                return;
            }
            Decoded decoded = codec.decode(event.data().getBytes(StandardCharsets.UTF_8));
            if (!(decoded instanceof Decoded.Single single)) {
                return;
            }
            JsonRpcMessage message = single.message();
            switch (message) {
                case JsonRpcResponse r when id.equals(r.id()) -> response = r;
                case JsonRpcNotification n -> notifications.accept(n);
                case JsonRpcRequest r -> answerServerRequest(r);
                default -> {
                }
            }
        }
    }

    /** This client offers no server-to-client features; it answers ping and refuses the rest. */
    private void answerServerRequest(JsonRpcRequest request) {
        JsonRpcMessage answer = request.method().equals("ping")
                ? new JsonRpcResult(request.id(), dev.tern.protocol.Json.object())
                : new JsonRpcFailure(request.id(), JsonRpcError.of(ErrorCodes.METHOD_NOT_FOUND,
                        "Method not found: this client does not support " + request.method()));
        engine.send(post(bodies.encode(answer), sessionVersion));
    }
}
