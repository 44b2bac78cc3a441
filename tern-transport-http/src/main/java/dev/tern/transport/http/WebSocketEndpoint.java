package dev.tern.transport.http;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

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
import io.netty.handler.codec.http.websocketx.WebSocket13FrameDecoder;
import io.netty.handler.codec.http.websocketx.WebSocket13FrameEncoder;
import io.netty.handler.codec.http.websocketx.WebSocketDecoderConfig;
import io.netty.handler.codec.http.websocketx.WebSocketFrameAggregator;
import io.netty.handler.codec.http.websocketx.WebSocketFrameDecoder;
import io.netty.handler.codec.http.websocketx.WebSocketHandshakeException;
import io.netty.handler.codec.http.websocketx.WebSocketServerHandshaker;
import io.netty.handler.codec.http.websocketx.WebSocketServerHandshakerFactory;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.timeout.IdleStateHandler;

/**
 * The WebSocket endpoint: upgrades an HTTP/1.1 request on its path (after the dispatcher's Host and Origin checks) to
 * a WebSocket connection with subprotocol {@code mcp} (JSON in text frames), {@code mcp.cbor} or {@code mcp.msgpack}
 * (CBOR or MessagePack in binary frames), or opens one on an HTTP/2 stream with an RFC 8441 extended CONNECT (its
 * DATA frames then carry the frames, {@link WebSocketOverHttp2}); the pipeline then carries frames:
 * Netty's frame decoder (masking, frame size: 1002, 1009), its UTF-8 validator (1007), the {@link WebSocketFrameLimits}
 * against floods, Netty's aggregator (message size: 1009), and a {@link WebSocketConnection} serving MCP. One per
 * transport; keeps the open connections so a shutdown can end them, and counts them against the bounds of legacy
 * sessions (in all, and per client), since each may hold one.
 */
final class WebSocketEndpoint {
    /** The subprotocol the official TypeScript SDK's WebSocket client asks for; MCP messages go as text frames. */
    static final String SUBPROTOCOL = WireFormat.JSON.subprotocol();
    /** The {@code :protocol} of an RFC 8441 extended CONNECT that opens a WebSocket. */
    private static final String PROTOCOL = "websocket";
    /** The one WebSocket version served (RFC 6455). */
    private static final String VERSION = "13";
    /** Every subprotocol served, JSON's first: the one chosen is the first of the client's list found here. */
    private static final String SUBPROTOCOLS = java.util.Arrays.stream(WireFormat.values())
            .map(WireFormat::subprotocol).collect(java.util.stream.Collectors.joining(","));

    private final McpServer server;
    private final JsonRpcCodec codec;
    private final java.util.Map<WireFormat, MessageCodec> codecs = new java.util.EnumMap<>(WireFormat.class);
    private final HttpOptions.WebSocket options;
    private final long maxBufferedBytes;
    private final WebSocketServerHandshakerFactory handshakers;
    /** How frames from clients are decoded, over HTTP/1.1 (by the handshakers) and HTTP/2 alike. */
    private final WebSocketDecoderConfig decoderConfig;
    /** Connections open on HTTP/2 streams (RFC 8441), of all those open. */
    private final AtomicInteger http2Streams = new AtomicInteger();
    /** Connections opened on HTTP/2 streams since the start. */
    private final AtomicLong http2Opened = new AtomicLong();
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
        this.decoderConfig = WebSocketDecoderConfig.newBuilder()
                .maxFramePayloadLength(options.maxFrameBytes())
                .expectMaskedFrames(true)
                .allowMaskMismatch(false)
                .allowExtensions(false)
                .closeOnProtocolViolation(true)
                .withUTF8Validator(true)
                .build();
        this.handshakers = new WebSocketServerHandshakerFactory(options.path(), SUBPROTOCOLS, decoderConfig);
    }

    String path() {
        return options.path();
    }

    int size() {
        return open.size();
    }

    /** Of the open connections, those on an HTTP/2 stream. */
    int http2Streams() {
        return http2Streams.get();
    }

    /** Connections opened on HTTP/2 streams since the start, closed ones included. */
    long http2Opened() {
        return http2Opened.get();
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
     * subprotocol this endpoint speaks), 503 when the server holds {@code sessions.max} connections, 429 when the
     * client holds its {@code sessions.maxPerClient} share. On HTTP/2 the request is an RFC 8441 extended CONNECT,
     * answered by {@link #connect}.
     */
    void upgrade(HttpRequest request, HttpExchange exchange, String principal) {
        Channel channel = exchange.channel();
        if (channel instanceof Http2StreamChannel stream) {
            if (request instanceof Http2StreamCodec.ExtendedConnect connect) {
                connect(connect, stream, exchange, principal);
            } else {
                exchange.header(HttpHeaderNames.ALLOW, HttpMethod.CONNECT);
                refuse(exchange, HttpResponseStatus.METHOD_NOT_ALLOWED, "Method not allowed: over HTTP/2, open a "
                        + "WebSocket with an extended CONNECT (RFC 8441, :protocol websocket)");
            }
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
            refuseSubprotocol(exchange, asked);
            return;
        }
        WebSocketServerHandshaker handshaker = handshakers.newHandshaker(request);
        if (handshaker == null) {
            exchange.header(HttpHeaderNames.SEC_WEBSOCKET_VERSION, VERSION);
            refuse(exchange, HttpResponseStatus.UPGRADE_REQUIRED,
                    "Upgrade required: WebSocket version 13 (RFC 6455) is the only one served");
            return;
        }
        String client = admit(exchange, principal);
        if (client == null) {
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

    /**
     * Answers an RFC 8441 extended CONNECT on an HTTP/2 stream: 200 with the subprotocol chosen, after which the
     * stream's DATA frames carry the WebSocket's frames; or 400 for a {@code :protocol} other than {@code websocket}, a
     * CONNECT that ended its stream, a {@code Sec-WebSocket-Version} other than 13 (not 426, whose Upgrade header
     * HTTP/2 forbids) or no subprotocol served, and 503 or 429 as for an upgrade. A refusal ends this stream only.
     */
    private void connect(Http2StreamCodec.ExtendedConnect request, Http2StreamChannel stream, HttpExchange exchange,
            String principal) {
        if (!PROTOCOL.equalsIgnoreCase(request.protocol())) {
            refuse(exchange, HttpResponseStatus.BAD_REQUEST, request.protocol() == null
                    ? "Bad request: an extended CONNECT needs :protocol websocket (RFC 8441)"
                    : "Bad request: the only :protocol served is websocket (asked for: " + request.protocol() + ")");
            return;
        }
        if (request.ended()) {
            refuse(exchange, HttpResponseStatus.BAD_REQUEST,
                    "Bad request: the extended CONNECT ended its stream (END_STREAM): no WebSocket can follow");
            return;
        }
        if (!VERSION.equals(request.headers().get(HttpHeaderNames.SEC_WEBSOCKET_VERSION))) {
            exchange.header(HttpHeaderNames.SEC_WEBSOCKET_VERSION, VERSION);
            refuse(exchange, HttpResponseStatus.BAD_REQUEST,
                    "Bad request: WebSocket version 13 (RFC 6455) is the only one served");
            return;
        }
        String asked = request.headers().get(HttpHeaderNames.SEC_WEBSOCKET_PROTOCOL);
        WireFormat format = asked == null ? WireFormat.JSON : choose(asked);
        if (format == null) {
            refuseSubprotocol(exchange, asked);
            return;
        }
        String client = admit(exchange, principal);
        if (client == null) {
            return;
        }
        ChannelPipeline p = stream.pipeline();
        p.remove(RequestDecoder.class);
        p.remove(Http2StreamCodec.class);
        Http2Headers accepted = new DefaultHttp2Headers().status(HttpResponseStatus.OK.codeAsText());
        if (asked != null) {
            accepted.set(HttpHeaderNames.SEC_WEBSOCKET_PROTOCOL, format.subprotocol());
        }
        stream.writeAndFlush(new DefaultHttp2HeadersFrame(accepted, false)).addListener(done -> {
            if (!done.isSuccess()) {
                stream.close();
            }
        });
        p.addLast(WebSocketOverHttp2.NAME, new WebSocketOverHttp2());
        p.addLast("wsencoder", new WebSocket13FrameEncoder(false));
        p.addLast("idle", new IdleStateHandler(options.idleTimeout().toMillis(), 0,
                options.pingInterval().toMillis(), TimeUnit.MILLISECONDS));
        p.addLast("wsdecoder", new WebSocket13FrameDecoder(decoderConfig));
        http2Streams.incrementAndGet();
        http2Opened.incrementAndGet();
        serveFrames(p, principal, client, format, () -> http2Streams.decrementAndGet());
        stream.config().setAutoRead(true);
    }

    /**
     * Counts a new connection against the bounds: the client's share's key, or {@code null} once refused with 503
     * (the server holds {@code sessions.max} connections) or 429 (the client holds its share).
     */
    private String admit(HttpExchange exchange, String principal) {
        if (open.size() >= max) {
            exchange.header(HttpHeaderNames.RETRY_AFTER, 1);
            refuse(exchange, HttpResponseStatus.SERVICE_UNAVAILABLE,
                    "Service unavailable: the server holds as many WebSocket connections as it may");
            return null;
        }
        String client = shares.tryAcquire(ClientShares.client(principal, exchange));
        if (client == null) {
            exchange.header(HttpHeaderNames.RETRY_AFTER, 1);
            refuse(exchange, HttpResponseStatus.TOO_MANY_REQUESTS,
                    "Too many requests: this client holds its share of WebSocket connections");
        }
        return client;
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
        serveFrames(p, principal, client, format, () -> { });
    }

    /**
     * Adds, behind the frame decoder, the UTF-8 validator, the flood limits, the aggregator and the connection that
     * serves MCP; {@code onClosed} runs when the connection ends.
     */
    private void serveFrames(ChannelPipeline p, String principal, String client, WireFormat format,
            Runnable onClosed) {
        WebSocketConnection connection = new WebSocketConnection(server, codecs.get(format), options, maxBufferedBytes,
                principal,
                closed -> {
                    open.remove(closed);
                    shares.release(client);
                    onClosed.run();
                });
        String decoder = p.context(WebSocketFrameDecoder.class).name();
        p.addAfter(decoder, "ws-utf8", new Utf8FrameValidator(true));
        p.addAfter("ws-utf8", "ws-limits", new WebSocketFrameLimits(options));
        p.addAfter("ws-limits", "ws-aggregator", new WebSocketFrameAggregator(options.maxMessageBytes()));
        p.addAfter("ws-aggregator", "ws-mcp", connection);
        open.add(connection);
    }

    /** The first subprotocol of a {@code Sec-WebSocket-Protocol} list that is served, or {@code null}. */
    private static WireFormat choose(String asked) {
        for (String p : asked.split(",")) {
            WireFormat format = WireFormat.ofSubprotocol(p.trim());
            if (format != null) {
                return format;
            }
        }
        return null;
    }

    private void refuseSubprotocol(HttpExchange exchange, String asked) {
        refuse(exchange, HttpResponseStatus.BAD_REQUEST, "Bad request: the WebSocket subprotocol must be one of "
                + SUBPROTOCOLS.replace(",", ", ") + " (asked for: " + asked + ")");
    }

    /** Whether a {@code Sec-WebSocket-Protocol} list names a subprotocol served. */
    private static boolean offers(String asked) {
        return choose(asked) != null;
    }

    private void refuse(HttpExchange exchange, HttpResponseStatus status, String message) {
        exchange.json(status, codec.encode(new JsonRpcFailure(null, JsonRpcError.of(ErrorCodes.INVALID_REQUEST,
                message))));
    }
}
