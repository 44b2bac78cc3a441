package dev.tern.transport.http;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import dev.tern.protocol.ErrorCodes;
import dev.tern.protocol.JsonRpcCodec;
import dev.tern.protocol.JsonRpcError;
import dev.tern.protocol.JsonRpcFailure;
import dev.tern.protocol.MessageCodec;
import dev.tern.protocol.WireFormat;
import dev.tern.server.McpServer;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerUpgradeHandler;
import io.netty.handler.codec.http.websocketx.Utf8FrameValidator;
import io.netty.handler.codec.http.websocketx.WebSocketDecoderConfig;
import io.netty.handler.codec.http.websocketx.WebSocketFrameAggregator;
import io.netty.handler.codec.http.websocketx.WebSocketFrameDecoder;
import io.netty.handler.codec.http.websocketx.WebSocketHandshakeException;
import io.netty.handler.codec.http.websocketx.WebSocketServerHandshaker;
import io.netty.handler.codec.http.websocketx.WebSocketServerHandshakerFactory;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.timeout.IdleStateHandler;

/**
 * The WebSocket endpoint: upgrades an HTTP/1.1 request on its path (after the dispatcher's Host and Origin checks) to
 * a WebSocket connection with subprotocol {@code mcp} (JSON in text frames), {@code mcp.cbor} or {@code mcp.msgpack}
 * (CBOR or MessagePack in binary frames), whose pipeline then carries frames instead of HTTP messages:
 * Netty's frame decoder (masking, frame size: 1002, 1009), its UTF-8 validator (1007), the {@link WebSocketFrameLimits}
 * against floods, Netty's aggregator (message size: 1009), and a {@link WebSocketConnection} serving MCP. One per
 * transport; keeps the open connections so a shutdown can end them, and counts them against the bounds of legacy
 * sessions (in all, and per client), since each may hold one.
 */
final class WebSocketEndpoint {
    /** The subprotocol the official TypeScript SDK's WebSocket client asks for; MCP messages go as text frames. */
    static final String SUBPROTOCOL = WireFormat.JSON.subprotocol();
    /** Every subprotocol served, JSON's first: the one chosen is the first of the client's list found here. */
    private static final String SUBPROTOCOLS = java.util.Arrays.stream(WireFormat.values())
            .map(WireFormat::subprotocol).collect(java.util.stream.Collectors.joining(","));

    private final McpServer server;
    private final JsonRpcCodec codec;
    private final java.util.Map<WireFormat, MessageCodec> codecs = new java.util.EnumMap<>(WireFormat.class);
    private final HttpOptions.WebSocket options;
    private final long maxBufferedBytes;
    private final WebSocketServerHandshakerFactory handshakers;
    private final Set<WebSocketConnection> open = ConcurrentHashMap.newKeySet();
    /** A connection may hold a legacy session: it counts against the same bounds as one. */
    private final int max;
    private final ClientShares shares;

    WebSocketEndpoint(McpServer server, HttpOptions http, HttpOptions.WebSocket options) {
        this.server = server;
        this.codec = new JsonRpcCodec(http.limits().messages());
        for (WireFormat format : WireFormat.values()) {
            codecs.put(format, MessageCodec.of(format, codec));
        }
        this.options = options;
        this.maxBufferedBytes = http.connections().maxBufferedResponseBytes();
        this.max = http.sessions().max();
        this.shares = new ClientShares(http.sessions().maxPerClient());
        // The URL is only echoed by the draft handshakes, which are not offered: RFC 6455 (version 13) alone.
        this.handshakers = new WebSocketServerHandshakerFactory(options.path(), SUBPROTOCOLS,
                WebSocketDecoderConfig.newBuilder()
                        .maxFramePayloadLength(options.maxFrameBytes())
                        .expectMaskedFrames(true)
                        .allowMaskMismatch(false)
                        .allowExtensions(false)
                        .closeOnProtocolViolation(true)
                        .withUTF8Validator(true)
                        .build());
    }

    String path() {
        return options.path();
    }

    int size() {
        return open.size();
    }

    /** Requests being served on every open connection. */
    int inFlight() {
        int n = 0;
        for (WebSocketConnection c : open) {
            n += c.inFlight();
        }
        return n;
    }

    /** Reads no more requests on any connection; those in flight still get their answers. */
    void drain() {
        open.forEach(WebSocketConnection::stopReading);
    }

    /** Ends every connection with 1001 (going away). */
    void closeAll() {
        open.forEach(WebSocketConnection::goAway);
    }

    /**
     * Answers an upgrade request that passed the Host and Origin checks: switches the connection to WebSocket, or
     * refuses with 400, 405 or 426 (wrong method, no {@code Upgrade: websocket}, another WebSocket version, no
     * subprotocol this endpoint speaks, HTTP/2), 503 when the server holds {@code sessions.max} connections, 429
     * when the client holds its {@code sessions.maxPerClient} share.
     */
    void upgrade(HttpRequest request, HttpExchange exchange, String principal) {
        Channel channel = exchange.channel();
        if (channel instanceof Http2StreamChannel) {
            refuse(exchange, HttpResponseStatus.BAD_REQUEST,
                    "Bad request: WebSocket is served over HTTP/1.1 only (no RFC 8441 extended CONNECT)");
            return;
        }
        if (!HttpMethod.GET.equals(request.method())) {
            exchange.header(HttpHeaderNames.ALLOW, HttpMethod.GET);
            refuse(exchange, HttpResponseStatus.METHOD_NOT_ALLOWED,
                    "Method not allowed: open a WebSocket with a GET upgrade request");
            return;
        }
        if (!HttpHeaderValues.WEBSOCKET.contentEqualsIgnoreCase(request.headers().get(HttpHeaderNames.UPGRADE, ""))) {
            exchange.header(HttpHeaderNames.UPGRADE, HttpHeaderValues.WEBSOCKET)
                    .header(HttpHeaderNames.CONNECTION, HttpHeaderValues.UPGRADE);
            refuse(exchange, HttpResponseStatus.UPGRADE_REQUIRED,
                    "Upgrade required: this path serves MCP over WebSocket (Upgrade: websocket)");
            return;
        }
        String asked = request.headers().get(HttpHeaderNames.SEC_WEBSOCKET_PROTOCOL);
        if (asked != null && !offers(asked)) {
            refuse(exchange, HttpResponseStatus.BAD_REQUEST,
                    "Bad request: the WebSocket subprotocol must be one of " + SUBPROTOCOLS.replace(",", ", ")
                            + " (asked for: " + asked + ")");
            return;
        }
        WebSocketServerHandshaker handshaker = handshakers.newHandshaker(request);
        if (handshaker == null) {
            exchange.header(HttpHeaderNames.SEC_WEBSOCKET_VERSION, "13");
            refuse(exchange, HttpResponseStatus.UPGRADE_REQUIRED,
                    "Upgrade required: WebSocket version 13 (RFC 6455) is the only one served");
            return;
        }
        if (open.size() >= max) {
            exchange.header(HttpHeaderNames.RETRY_AFTER, 1);
            refuse(exchange, HttpResponseStatus.SERVICE_UNAVAILABLE,
                    "Service unavailable: the server holds as many WebSocket connections as it may");
            return;
        }
        String client = shares.tryAcquire(ClientShares.client(principal, exchange));
        if (client == null) {
            exchange.header(HttpHeaderNames.RETRY_AFTER, 1);
            refuse(exchange, HttpResponseStatus.TOO_MANY_REQUESTS,
                    "Too many requests: this client holds its share of WebSocket connections");
            return;
        }
        FullHttpRequest whole = new DefaultFullHttpRequest(request.protocolVersion(), request.method(), request.uri(),
                Unpooled.EMPTY_BUFFER, request.headers(), io.netty.handler.codec.http.EmptyHttpHeaders.INSTANCE);
        try {
            handshaker.handshake(channel, whole, null, channel.newPromise()).addListener(done -> {
                if (!done.isSuccess()) {
                    channel.close();
                }
            });
        } catch (WebSocketHandshakeException e) {
            shares.release(client);
            refuse(exchange, HttpResponseStatus.BAD_REQUEST, "Bad request: " + e.getMessage());
            return;
        }
        // The handshaker chose the first subprotocol of the client's list that it serves; none asked for: JSON.
        WireFormat format = WireFormat.ofSubprotocol(handshaker.selectedSubprotocol());
        switchPipeline(channel.pipeline(), principal, client, format == null ? WireFormat.JSON : format);
    }

    /** Replaces the HTTP handlers behind Netty's frame decoder with those that serve frames. */
    private void switchPipeline(ChannelPipeline p, String principal, String client, WireFormat format) {
        p.remove(RequestDecoder.class);
        if (p.get(RequestHeaderTimeout.NAME) != null) {
            p.remove(RequestHeaderTimeout.NAME);
        }
        if (p.get(HttpServerUpgradeHandler.class) != null) {
            p.remove(HttpServerUpgradeHandler.class);
        }
        // The HTTP idle timeout gives way to pings while quiet and a longer wait for anything from the client.
        p.replace("idle", "idle", new IdleStateHandler(options.idleTimeout().toMillis(), 0,
                options.pingInterval().toMillis(), TimeUnit.MILLISECONDS));
        WebSocketConnection connection = new WebSocketConnection(server, codecs.get(format), options, maxBufferedBytes,
                principal,
                closed -> {
                    open.remove(closed);
                    shares.release(client);
                });
        String decoder = p.context(WebSocketFrameDecoder.class).name();
        p.addAfter(decoder, "ws-utf8", new Utf8FrameValidator(true));
        p.addAfter("ws-utf8", "ws-limits", new WebSocketFrameLimits(options));
        p.addAfter("ws-limits", "ws-aggregator", new WebSocketFrameAggregator(options.maxMessageBytes()));
        p.addAfter("ws-aggregator", "ws-mcp", connection);
        open.add(connection);
    }

    /** Whether a {@code Sec-WebSocket-Protocol} list names a subprotocol served. */
    private static boolean offers(String asked) {
        for (String p : asked.split(",")) {
            if (WireFormat.ofSubprotocol(p) != null) {
                return true;
            }
        }
        return false;
    }

    private void refuse(HttpExchange exchange, HttpResponseStatus status, String message) {
        exchange.json(status, codec.encode(new JsonRpcFailure(null, JsonRpcError.of(ErrorCodes.INVALID_REQUEST,
                message))));
    }
}
