package dev.tern.transport.http;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.tern.protocol.JsonRpcCodec;
import dev.tern.protocol.JsonRpcMessage;
import dev.tern.protocol.JsonRpcResponse;
import dev.tern.protocol.RequestId;
import dev.tern.server.McpServer;
import dev.tern.server.Outbound;
import dev.tern.server.ServerChannel;

import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * A legacy (2025-11-25 and older) Streamable HTTP session: one server channel, the POSTs whose requests are in
 * flight, and the standalone GET stream. Messages tied to a request go to that request's POST; the others go to the
 * GET stream, or are dropped when there is none.
 */
final class Session implements Outbound {
    private static final System.Logger LOG = System.getLogger("dev.tern.transport.http");

    final String id;
    private final JsonRpcCodec codec;
    private final ServerChannel channel;
    private final Map<RequestId, HttpExchange> posts = new ConcurrentHashMap<>();
    private volatile HttpExchange getStream;
    private volatile long lastAccessNanos = System.nanoTime();

    Session(String id, McpServer server, JsonRpcCodec codec) {
        this.id = id;
        this.codec = codec;
        this.channel = server.connect(this);
    }

    ServerChannel channel() {
        return channel;
    }

    void touch() {
        lastAccessNanos = System.nanoTime();
    }

    long idleNanos() {
        return System.nanoTime() - lastAccessNanos;
    }

    /** Routes the messages of a request (or all requests of a batch) to the POST that carried it. */
    void register(RequestId requestId, HttpExchange exchange) {
        posts.put(requestId, exchange);
        exchange.onClientGone(() -> posts.remove(requestId, exchange));
    }

    void unregister(RequestId requestId, HttpExchange exchange) {
        posts.remove(requestId, exchange);
    }

    /** Opens the standalone GET stream; false if one is open already. */
    synchronized boolean openGetStream(HttpExchange exchange) {
        HttpExchange current = getStream;
        if (current != null && current.isOpen()) {
            return false;
        }
        getStream = exchange;
        exchange.onClientGone(() -> clearGetStream(exchange));
        return true;
    }

    private synchronized void clearGetStream(HttpExchange exchange) {
        if (getStream == exchange) {
            getStream = null;
        }
    }

    /**
     * The client cancelled a request: the server sends nothing more for it, so its POST ends here without a
     * response instead of staying open (and counted in flight) until the client gives up.
     */
    void cancelled(RequestId requestId) {
        HttpExchange post = posts.remove(requestId);
        if (post != null) {
            post.endWithoutResponse(null);
        }
    }

    boolean hasPost(RequestId requestId) {
        return posts.containsKey(requestId);
    }

    @Override
    public void send(JsonRpcMessage message, RequestId relatedTo) {
        byte[] json = codec.encode(message);
        HttpExchange post = relatedTo == null ? null : posts.get(relatedTo);
        if (post != null && post.isOpen()) {
            boolean last = message instanceof JsonRpcResponse r && relatedTo.equals(r.id());
            if (last) {
                posts.remove(relatedTo, post);
                post.json(HttpResponseStatus.OK, json);
            } else {
                post.event(json, null, false);
            }
            return;
        }
        if (message instanceof JsonRpcResponse) {
            LOG.log(System.Logger.Level.DEBUG, "Response to {0} dropped: its POST is gone", relatedTo);
            return;
        }
        HttpExchange stream = getStream;
        if (stream != null && stream.isOpen()) {
            stream.event(json, null, false);
        }
    }

    @Override
    public void sendBatch(List<? extends JsonRpcMessage> responses) {
        HttpExchange post = null;
        for (JsonRpcMessage m : responses) {
            if (m instanceof JsonRpcResponse r && r.id() != null) {
                HttpExchange e = posts.remove(r.id());
                if (post == null) {
                    post = e;
                }
            }
        }
        if (post != null) {
            post.json(HttpResponseStatus.OK, codec.encodeBatch(responses));
        }
    }

    void close(java.time.Duration retry) {
        channel.close();
        HttpExchange stream = getStream;
        if (stream != null) {
            stream.end(retry);
        }
        for (HttpExchange post : posts.values()) {
            post.endWithoutResponse(retry);
        }
        posts.clear();
    }
}
