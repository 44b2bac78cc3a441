package dev.tern.client;

import java.net.URI;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import dev.tern.client.http.WebSocketClient;
import dev.tern.protocol.Decoded;
import dev.tern.protocol.Json;
import dev.tern.protocol.JsonRpcMessage;
import dev.tern.protocol.JsonRpcNotification;
import dev.tern.protocol.JsonRpcRequest;
import dev.tern.protocol.MessageCodec;
import dev.tern.protocol.ProtocolVersion;
import dev.tern.protocol.RequestId;

import tools.jackson.databind.node.ObjectNode;

/**
 * A server's WebSocket endpoint ({@code ws://}, {@code wss://}): one long-lived connection, opened on the first
 * message, carrying every request of both eras as text messages (JSON, subprotocol {@code mcp}) or binary ones (CBOR,
 * MessagePack: {@code mcp.cbor}, {@code mcp.msgpack}); a legacy session lives as long as the connection.
 * A connection that has ended is opened again for the next message (a legacy session does not survive that).
 */
final class WebSocketMcpTransport implements McpTransport {
    private final URI uri;
    private final WebSocketClient.Builder builder;
    private final MessageCodec codec;
    private final Consumer<JsonRpcNotification> notifications;
    private final PendingRequests pending = new PendingRequests();
    private CompletableFuture<WebSocketClient> connection;
    private volatile boolean closed;

    WebSocketMcpTransport(URI uri, WebSocketClient.Builder builder, MessageCodec codec,
            Consumer<JsonRpcNotification> notifications) {
        this.uri = uri;
        this.builder = builder;
        this.codec = codec;
        this.notifications = notifications;
    }

    @Override
    public boolean http() {
        return false;
    }

    @Override
    public CompletableFuture<McpReply> send(JsonRpcRequest request, ProtocolVersion version, List<String> extraHeaders) {
        CompletableFuture<McpReply> future = new CompletableFuture<>();
        pending.add(request.id(), future, System.nanoTime());
        future.whenComplete((r, e) -> {
            Throwable cause = e == null ? null : McpClient.unwrap(e);
            boolean givenUp = cause instanceof java.util.concurrent.TimeoutException
                    || cause instanceof java.util.concurrent.CancellationException;
            if (pending.remove(request.id()) && givenUp && !closed) {
                // given up on (timeout, cancellation): tell the server to stop working on it
                ObjectNode params = Json.object();
                params.set("requestId", Json.mapper().valueToTree(switch (request.id()) {
                    case RequestId.NumberId n -> n.value();
                    case RequestId.StringId s -> s.value();
                }));
                params.put("reason", "the client stopped waiting: " + cause.getClass().getSimpleName());
                write(new JsonRpcNotification("notifications/cancelled", params));
            }
        });
        write(request).exceptionally(e -> {
            future.completeExceptionally(McpClient.unwrap(e));
            return null;
        });
        return future;
    }

    @Override
    public CompletableFuture<Void> notify(JsonRpcNotification notification, ProtocolVersion version) {
        return write(notification);
    }

    /** Writes one message on the connection, opening it first if need be. */
    private CompletableFuture<Void> write(JsonRpcMessage message) {
        byte[] bytes = codec.encode(message);
        CompletableFuture<Void> written = new CompletableFuture<>();
        connection().whenComplete((ws, e) -> {
            if (e != null) {
                written.completeExceptionally(new McpClientException("cannot open a WebSocket to " + uri + ": "
                        + McpClient.unwrap(e).getMessage(), McpClient.unwrap(e)));
                return;
            }
            (codec.format().binary() ? ws.sendBinary(bytes) : ws.send(bytes)).addListener(f -> {
                if (f.isSuccess()) {
                    written.complete(null);
                } else {
                    written.completeExceptionally(new McpClientException("cannot write to " + uri + ": "
                            + f.cause().getMessage(), f.cause()));
                }
            });
        });
        return written;
    }

    private synchronized CompletableFuture<WebSocketClient> connection() {
        if (closed) {
            return CompletableFuture.failedFuture(new McpClientException("the client is closed"));
        }
        CompletableFuture<WebSocketClient> c = connection;
        if (c == null || c.isCompletedExceptionally() || c.isDone() && !c.join().isOpen()) {
            c = builder.connect(this::receive, this::ended);
            connection = c;
        }
        return c;
    }

    /** Whether the connection open now runs on an HTTP/2 stream (RFC 8441); false before it opens. */
    synchronized boolean http2() {
        CompletableFuture<WebSocketClient> c = connection;
        return c != null && c.isDone() && !c.isCompletedExceptionally() && c.join().http2();
    }

    private void ended(WebSocketClient.Closed how) {
        failAll(new McpClientException("the WebSocket connection to " + uri + " closed"
                + (how.status() < 0 ? "" : " (" + how.status() + (how.reason().isEmpty() ? "" : " " + how.reason())
                        + ")")));
    }

    private void receive(byte[] message) {
        long now = System.nanoTime();
        Decoded decoded = codec.decode(message, 0, message.length);
        if (!(decoded instanceof Decoded.Single single)) {
            return;
        }
        pending.receive(single.message(), now, notifications, this::write);
    }

    private void failAll(McpClientException cause) {
        pending.failAll(cause);
    }

    @Override
    public void close() {
        CompletableFuture<WebSocketClient> c;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            c = connection;
        }
        if (c != null && c.isDone() && !c.isCompletedExceptionally()) {
            c.join().close();
        } else if (c != null) {
            c.thenAccept(WebSocketClient::close);
        }
        failAll(new McpClientException("the client is closed"));
    }
}
