package dev.tern.transport.http;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.tern.protocol.Decoded;
import dev.tern.protocol.ErrorCodes;
import dev.tern.protocol.JsonRpcCodec;
import dev.tern.protocol.JsonRpcMessage;
import dev.tern.protocol.JsonRpcRequest;
import dev.tern.protocol.ProtocolRules;
import dev.tern.protocol.ProtocolVersion;
import dev.tern.protocol.RequestId;
import dev.tern.server.McpServer;
import dev.tern.server.Outbound;
import dev.tern.server.ServerChannel;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.QueryStringDecoder;

/**
 * The deprecated HTTP+SSE transport of 2024-11-05, for clients that predate Streamable HTTP: a GET on the SSE path
 * opens a stream whose first event, {@code endpoint}, names the URI to POST messages to; every server message goes
 * out on that stream as a {@code message} event, and each POST is answered 202. A connection lives as long as its
 * stream: when the client goes, its channel closes. Thread-safe.
 */
final class LegacySseEndpoint {
    static final String SESSION_PARAM = "sessionId";

    private final McpServer server;
    private final JsonRpcCodec codec;
    private final HttpOptions options;
    private final HttpOptions.Sse.LegacyPaths paths;
    private final SecureRandom random = new SecureRandom();
    private final Map<String, Connection> connections = new ConcurrentHashMap<>();
    private final ClientShares shares;

    LegacySseEndpoint(McpServer server, JsonRpcCodec codec, HttpOptions options) {
        this.shares = new ClientShares(options.sessions().maxPerClient());
        this.server = server;
        this.codec = codec;
        this.options = options;
        this.paths = options.sse().legacy().orElse(null);
    }

    boolean serves(String path) {
        return paths != null && (path.equals(paths.ssePath()) || path.equals(paths.messagesPath()));
    }

    boolean isMessagesPath(String path) {
        return paths != null && path.equals(paths.messagesPath());
    }

    int size() {
        return connections.size();
    }

    /** A GET on the SSE path: opens the stream and announces where to POST. */
    void open(HttpHeaders headers, HttpExchange exchange, McpEndpoint errors) {
        if (!McpEndpoint.accepts(headers, "text/event-stream")) {
            errors.error(exchange, HttpResponseStatus.NOT_ACCEPTABLE, null, ErrorCodes.INVALID_REQUEST,
                    "Not Acceptable: the SSE stream needs Accept: text/event-stream");
            return;
        }
        String principal = errors.principal(headers, exchange);
        String client = shares.tryAcquire(ClientShares.client(principal, exchange));
        if (client == null) {
            errors.shareUsed(exchange, null, "SSE connections");
            return;
        }
        if (connections.size() >= options.sessions().max()) {
            shares.release(client);
            errors.serverFull(exchange, null, "SSE connections");
            return;
        }
        byte[] bytes = new byte[32];
        random.nextBytes(bytes);
        String id = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        Connection connection = new Connection(id, principal, client, exchange);
        try {
            connection.channel = server.connect(connection);
        } catch (RuntimeException closed) { // the server closed meanwhile
            shares.release(client);
            throw closed;
        }
        connection.caller = AuthCaller.of(exchange, errors.auth());
        connections.put(id, connection);
        exchange.onDone(() -> close(connection));
        exchange.startStream(null, null, options.sse().keepAlive());
        exchange.namedEvent("endpoint", paths.messagesPath() + "?" + SESSION_PARAM + "=" + id);
    }

    /** A POST to the messages path whose body has arrived: hands the message to the connection's channel. */
    void post(String uri, HttpHeaders headers, byte[] body, HttpExchange exchange, McpEndpoint errors) {
        java.util.List<String> ids = new QueryStringDecoder(uri).parameters().get(SESSION_PARAM);
        if (ids == null || ids.size() != 1 || ids.get(0).isEmpty()) {
            errors.error(exchange, HttpResponseStatus.BAD_REQUEST, null, ErrorCodes.INVALID_REQUEST,
                    "Bad Request: the sessionId query parameter is required (from the SSE endpoint event)");
            return;
        }
        Connection connection = connections.get(ids.get(0));
        if (connection != null && !java.util.Objects.equals(connection.principal, errors.principal(headers, exchange))) {
            connection = null;
        }
        if (connection == null) {
            errors.error(exchange, HttpResponseStatus.NOT_FOUND, null, ErrorCodes.INVALID_REQUEST,
                    "Session not found: its SSE stream is closed; open a new one");
            return;
        }
        if (connection.channel.inFlight() >= options.limits().maxInFlight()) {
            exchange.header(HttpHeaderNames.RETRY_AFTER, 1);
            errors.error(exchange, HttpResponseStatus.SERVICE_UNAVAILABLE, null, ErrorCodes.INTERNAL_ERROR,
                    "Service unavailable: too many requests in flight, retry shortly");
            return;
        }
        Decoded decoded = codec.decode(body);
        switch (decoded) {
            case Decoded.Invalid invalid -> exchange.json(HttpResponseStatus.BAD_REQUEST, codec.encode(invalid.failure()));
            case Decoded.Ignored ignored -> exchange.empty(HttpResponseStatus.ACCEPTED);
            case Decoded.Batch batch -> {
                ProtocolVersion version = connection.channel.negotiatedVersion();
                if (version == null || !version.allowsBatches()) {
                    errors.error(exchange, HttpResponseStatus.BAD_REQUEST, null, ErrorCodes.INVALID_REQUEST,
                            ProtocolRules.batchRefused().getMessage());
                    return;
                }
                for (Decoded item : batch.items()) {
                    if (item instanceof Decoded.Single s && s.message() instanceof JsonRpcRequest r
                            && !errors.permits(exchange, r)) {
                        return;
                    }
                }
                connection.caller = AuthCaller.of(exchange, errors.auth());
                exchange.empty(HttpResponseStatus.ACCEPTED);
                connection.channel.receive(batch);
            }
            case Decoded.Single single -> {
                JsonRpcMessage message = single.message();
                if (message instanceof JsonRpcRequest r && !errors.permits(exchange, r)) {
                    return;
                }
                connection.caller = AuthCaller.of(exchange, errors.auth());
                exchange.empty(HttpResponseStatus.ACCEPTED);
                connection.channel.receive(message);
            }
        }
    }

    private void close(Connection connection) {
        if (connections.remove(connection.id, connection)) {
            shares.release(connection.client);
            connection.channel.close();
        }
    }

    /** Ends every stream with a {@code retry} hint, at shutdown. */
    void closeAll(Duration retry) {
        for (Connection c : connections.values()) {
            c.stream.end(retry);
            close(c);
        }
    }

    /** One client's stream: everything the server sends goes out on it, in order. */
    private final class Connection implements Outbound {
        final String id;
        final String principal;
        /** The client whose share of the connections this one takes ({@link ClientShares}). */
        final String client;
        final HttpExchange stream;
        volatile ServerChannel channel;
        /** The caller of the latest message, whose token may have gained scopes since the stream opened. */
        volatile dev.tern.server.Caller caller;

        Connection(String id, String principal, String client, HttpExchange stream) {
            this.id = id;
            this.principal = principal;
            this.client = client;
            this.stream = stream;
        }

        @Override
        public String principal() {
            return principal;
        }

        @Override
        public dev.tern.server.Caller caller() {
            return caller;
        }

        @Override
        public void send(JsonRpcMessage message, RequestId relatedTo) {
            stream.event(codec.encode(message), null, false);
        }
    }
}
