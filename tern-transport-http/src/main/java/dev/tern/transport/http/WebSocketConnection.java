package dev.tern.transport.http;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import dev.tern.protocol.JsonRpcCodec;
import dev.tern.protocol.JsonRpcMessage;
import dev.tern.protocol.MessageCodec;
import dev.tern.protocol.WireFormat;
import dev.tern.protocol.RequestId;
import dev.tern.server.McpServer;
import dev.tern.server.Outbound;
import dev.tern.server.observe.RequestObservation;
import dev.tern.server.observe.Transport;
import dev.tern.server.ServerChannel;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CorruptedWebSocketFrameException;
import io.netty.handler.codec.http.websocketx.PingWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PongWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketCloseStatus;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;

import org.jspecify.annotations.Nullable;

/**
 * Serves MCP on one WebSocket connection: each text message (JSON, subprotocol {@code mcp}) or binary message (CBOR
 * or MessagePack, subprotocols {@code mcp.cbor} and {@code mcp.msgpack}) is one JSON-RPC message (or batch) for a
 * {@link ServerChannel} of its own, as a stdio pipe has, so 2026-07-28 requests are served as they come and an
 * {@code initialize} binds a 2025-11-25 session to the connection; responses, notifications and server-to-client
 * requests go back in the same format and frame type. A frame of the other type closes the connection with 1003; a
 * message that does not decode is answered with the codec's -32700. Back-pressure: reading pauses while the
 * connection is not writable or the connection's requests in flight reach their limit, and a client that lets more
 * than the buffer limit queue up is closed with 1008. Pings when quiet, closes with 1001 when nothing arrives within
 * the idle timeout.
 */
final class WebSocketConnection extends ChannelInboundHandlerAdapter implements Outbound {
    private static final System.Logger LOG = System.getLogger("dev.tern.transport.http");
    private static final RateLimitedLog SLOW = new RateLimitedLog(System.Logger.Level.INFO);
    /** How long a close frame may take to reach a client before the connection is closed without it. */
    private static final long CLOSE_GRACE_MILLIS = 1_000;
    /** How soon reading paused for the in-flight limit looks again whether requests have finished. */
    private static final long IN_FLIGHT_RECHECK_MILLIS = 2;

    private final McpServer server;
    private final MessageCodec codec;
    /** The connection's format is written as text frames through this; {@code null} for a binary one. */
    private final @Nullable JsonRpcCodec text;
    private final int maxInFlight;
    private final long maxBufferedBytes;
    private final @Nullable String principal;
    private final Consumer<WebSocketConnection> onClosed;
    /** Bytes written and not yet taken by the connection. */
    private final AtomicLong queued = new AtomicLong();
    private final Runnable updateReading = this::updateReading;
    private volatile ChannelHandlerContext ctx;
    private volatile ServerChannel channel;
    /** A close frame has been sent or received: nothing more is read or sent but the close. */
    private volatile boolean closing;
    /** The server is shutting down: no more requests are read. */
    private volatile boolean stopped;
    private boolean recheckScheduled;
    /** When the frame being handed to the server arrived; kept only while the server's observer is on. */
    private long frameReceived;
    private @Nullable String clientAddress;

    WebSocketConnection(McpServer server, MessageCodec codec, HttpOptions.WebSocket options, long maxBufferedBytes,
            @Nullable String principal, Consumer<WebSocketConnection> onClosed) {
        this.server = server;
        this.codec = codec;
        this.text = codec instanceof JsonRpcCodec json ? json : null;
        this.maxInFlight = options.maxInFlight();
        this.maxBufferedBytes = maxBufferedBytes;
        this.principal = principal;
        this.onClosed = onClosed;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.channel = server.connect(this);
        LOG.log(System.Logger.Level.DEBUG, "WebSocket connection from {0}{1}", ctx.channel().remoteAddress(),
                principal == null ? "" : " for " + principal);
        ctx.channel().closeFuture().addListener(closed -> {
            channel.close();
            onClosed.accept(this);
        });
    }

    /**
     * The server asks on the event loop, while it receives the frame that arrived at {@link #frameReceived}: one
     * observation for each request, notification or refused message in it (a batch's members each).
     */
    @Override
    public RequestObservation observation(@Nullable RequestId request) {
        if (clientAddress == null) {
            clientAddress = ClientAddress.describe(Connections.countedAddress(ctx.channel()));
        }
        RequestObservation o = server.observer().request(Transport.WEBSOCKET, frameReceived).clientAddress(clientAddress);
        return principal == null ? o : o.principal(principal);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            if (msg instanceof TextWebSocketFrame || msg instanceof BinaryWebSocketFrame) {
                WebSocketFrame frame = (WebSocketFrame) msg;
                if (closing) {
                    return;
                }
                if (frame instanceof TextWebSocketFrame != (text != null)) {
                    WireFormat format = codec.format();
                    closeWith(WebSocketCloseStatus.INVALID_MESSAGE_TYPE, "MCP messages are "
                            + (format.binary() ? "binary" : "text") + " frames on subprotocol " + format.subprotocol());
                    return;
                }
                ByteBuf content = frame.content();
                if (server.observer().enabled()) {
                    frameReceived = System.nanoTime();
                }
                if (content.hasArray()) {
                    channel.receive(codec.decode(content.array(), content.arrayOffset() + content.readerIndex(),
                            content.readableBytes()));
                } else {
                    byte[] bytes = ByteBufUtil.getBytes(content);
                    channel.receive(codec.decode(bytes, 0, bytes.length));
                }
                updateReading();
            } else if (msg instanceof PingWebSocketFrame ping) {
                // A client that does not read gets no pongs queued; its pings are counted by WebSocketFrameLimits.
                if (!closing && ctx.channel().isWritable()) {
                    ctx.writeAndFlush(new PongWebSocketFrame(ping.content().retain()));
                }
            } else if (msg instanceof CloseWebSocketFrame close) {
                int status = close.statusCode();
                closing = true;
                ctx.writeAndFlush(status < 0 ? new CloseWebSocketFrame() : new CloseWebSocketFrame(status, ""))
                        .addListener(ChannelFutureListener.CLOSE);
            }
            // A pong needs no answer: that something arrived is what the idle timeout waits for.
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    @Override
    public void send(JsonRpcMessage message, @Nullable RequestId relatedTo) {
        ChannelHandlerContext c = ctx;
        if (closing || !c.channel().isActive()) {
            return;
        }
        if (text == null) {
            write(new BinaryWebSocketFrame(Unpooled.wrappedBuffer(codec.encode(message))));
            return;
        }
        ByteBuf body = c.alloc().ioBuffer(512);
        try {
            text.encode(message, new ByteBufOutputStream(body));
        } catch (RuntimeException | Error e) {
            body.release();
            throw e;
        }
        write(new TextWebSocketFrame(body));
    }

    @Override
    public void sendBatch(List<? extends JsonRpcMessage> responses) {
        if (!closing) {
            ByteBuf body = Unpooled.wrappedBuffer(codec.encodeBatch(responses));
            write(text == null ? new BinaryWebSocketFrame(body) : new TextWebSocketFrame(body));
        }
    }

    @Override
    public boolean runsNonBlockingHandlersInline() {
        return true;
    }

    private void write(WebSocketFrame frame) {
        long bytes = frame.content().readableBytes();
        if (queued.addAndGet(bytes) > maxBufferedBytes) {
            queued.addAndGet(-bytes);
            frame.release();
            HttpExchange.later(ctx.executor(), this::tooSlow);
            return;
        }
        ctx.writeAndFlush(frame).addListener(written -> {
            queued.addAndGet(-bytes);
            updateReading();
        });
    }

    private void tooSlow() {
        if (closing) {
            return;
        }
        SLOW.log("Closing the WebSocket connection from {0}: more than {1} bytes queued for a client not reading",
                ctx.channel().remoteAddress(), maxBufferedBytes);
        // A client that does not read has no input left to linger for: the connection closes once the frame is out.
        closing = true;
        channel.close();
        closeWith(ctx, WebSocketCloseStatus.POLICY_VIOLATION, "Messages are not being read", ChannelFutureListener.CLOSE);
    }

    /** On the event loop: reads on only while the client takes what is written and the in-flight limit allows. */
    private void updateReading() {
        ChannelHandlerContext c = ctx;
        boolean full = channel.inFlight() >= maxInFlight;
        boolean read = !closing && !stopped && c.channel().isWritable() && !full;
        if (c.channel().config().isAutoRead() != read) {
            c.channel().config().setAutoRead(read);
        }
        if (full && !recheckScheduled && !closing) {
            // A request's end is not signalled to the transport; its answer's write usually is, but not always last.
            recheckScheduled = true;
            c.executor().schedule(() -> {
                recheckScheduled = false;
                updateReading();
            }, IN_FLIGHT_RECHECK_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        updateReading();
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof IdleStateEvent idle) {
            if (idle.state() == IdleState.READER_IDLE) {
                closeWith(WebSocketCloseStatus.ENDPOINT_UNAVAILABLE, "Idle timeout");
            } else if (idle.state() == IdleState.ALL_IDLE && !closing) {
                ctx.writeAndFlush(new PingWebSocketFrame());
            }
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof TooLongFrameException) {
            closeWith(WebSocketCloseStatus.MESSAGE_TOO_BIG, "Message too big: " + cause.getMessage());
        } else if (cause instanceof CorruptedWebSocketFrameException) {
            // Netty's decoder or UTF-8 validator has sent the close frame with its status and closes the connection.
            closing = true;
            LOG.log(System.Logger.Level.DEBUG, "WebSocket protocol violation: {0}", cause.getMessage());
        } else {
            LOG.log(System.Logger.Level.DEBUG, "Closing WebSocket connection after an error: {0}", cause.toString());
            ctx.close();
        }
    }

    /** Requests being served on this connection. */
    int inFlight() {
        ServerChannel c = channel;
        return c == null ? 0 : c.inFlight();
    }

    /** Reads no more requests (the server is shutting down). */
    void stopReading() {
        stopped = true;
        HttpExchange.later(ctx.executor(), updateReading);
    }

    /** Ends the connection with 1001 (the server is going away). */
    void goAway() {
        HttpExchange.later(ctx.executor(),
                () -> closeWith(WebSocketCloseStatus.ENDPOINT_UNAVAILABLE, "Server shutting down"));
    }

    private void closeWith(WebSocketCloseStatus status, String reason) {
        if (closing) {
            return;
        }
        closing = true;
        closeWith(ctx, status, reason);
    }

    /**
     * Sends a close frame and closes the connection once it is written, or after a grace period if the client does
     * not take it. What the client still sends is read and thrown away meanwhile: closing with unread input would
     * reset the connection, and a reset can destroy the close frame before the client reads it.
     */
    static void closeWith(ChannelHandlerContext ctx, WebSocketCloseStatus status, String reason) {
        closeWith(ctx, status, reason, LingeringClose.INSTANCE);
    }

    private static void closeWith(ChannelHandlerContext ctx, WebSocketCloseStatus status, String reason,
            ChannelFutureListener afterwards) {
        ctx.channel().config().setAutoRead(false);
        ctx.writeAndFlush(new CloseWebSocketFrame(status, reason)).addListener(afterwards);
        ctx.executor().schedule(() -> {
            ctx.channel().close();
        }, CLOSE_GRACE_MILLIS, TimeUnit.MILLISECONDS);
    }
}
