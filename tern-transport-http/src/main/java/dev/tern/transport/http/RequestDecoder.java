package dev.tern.transport.http;

import java.util.ArrayDeque;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerUpgradeHandler;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameStreamException;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;

/**
 * Turns the HTTP messages of one HTTP/1.1 connection or one HTTP/2 stream into complete requests for the
 * {@link RequestDispatcher}: answers malformed requests, applies the body limit (413 before buffering, also for
 * chunked bodies), answers {@code Expect: 100-continue}, gathers the body within the body timeout, and closes
 * connections. On HTTP/1.1 requests are answered one at a time, in order: a request that arrives while a response is in
 * progress (pipelining) waits in a backlog, and reading stops until the backlog is served. Reading is not switched off
 * for each request: that costs two {@code epoll_ctl} calls per request. End of input means the client is gone (its
 * requests in progress are cancelled). Runs on the channel's event loop; never runs tool code.
 */
final class RequestDecoder extends ChannelInboundHandlerAdapter {
    private static final System.Logger LOG = System.getLogger("dev.tern.transport.http");
    private static final RateLimitedLog SLOW = new RateLimitedLog(System.Logger.Level.INFO);

    /** What becomes of the input of the request being read. */
    private enum Reading {
        /** No request is being read: the next message starts one. */
        HEAD,
        /** The body is gathered for {@link #reader}, within the body timeout. */
        BODY,
        /** A request without a body method: dispatched once it has ended, any body dropped, within the timeout. */
        UNTIL_END,
        /** The request has been answered or refused; the rest of its body is dropped. */
        DISCARD
    }

    /** HTTP/1.1: how the connection ends. */
    private enum Ending {
        /** Open for the next request. */
        KEEP_ALIVE,
        /** The response in progress is the last; the exchange closes the connection. */
        AFTER_THIS_RESPONSE,
        /** Nothing more is read; close once the requests read so far are answered. */
        AFTER_BACKLOG
    }

    private final RequestDispatcher dispatcher;
    private final HttpOptions.ConnectionLimits connections;
    private final java.util.concurrent.atomic.AtomicInteger pendingWriteWatches;
    private final java.util.concurrent.atomic.AtomicInteger sseStreams;
    private final long maxBodyBytes;
    private final long bodyTimeoutNanos;
    private final boolean http2;
    /** Made once: every exchange of the connection reports its end through it. */
    private final Runnable exchangeDone = this::exchangeDone;
    private final Runnable nextRequest = this::nextRequest;
    private final Runnable bodyTimeout = this::bodyTimedOut;
    private ChannelHandlerContext ctx;
    private RequestHeaderTimeout headerTimeout;

    private Reading reading = Reading.HEAD;
    private HttpRequest request;
    private HttpExchange exchange;
    private RequestDispatcher.BodyReader reader;
    private CompositeByteBuf body;
    private long received;
    private ScheduledFuture<?> bodyTimer;
    /** HTTP/1.1: a request has been read and its exchange is not done yet. */
    private boolean answering;
    /** HTTP/1.1: messages of requests that arrived while {@link #answering}, in order. */
    private ArrayDeque<HttpObject> backlog;
    private Ending ending = Ending.KEEP_ALIVE;
    /** HTTP/1.1: the connection's first request has passed the h2c upgrade handler. */
    private boolean upgradeOffered;

    RequestDecoder(RequestDispatcher dispatcher, HttpOptions options, McpEndpoint endpoint, boolean http2) {
        this.dispatcher = dispatcher;
        this.connections = options.connections();
        this.pendingWriteWatches = endpoint.pendingWriteWatches();
        this.sseStreams = endpoint.sseStreams();
        this.maxBodyBytes = options.limits().messages().maxMessageBytes();
        this.bodyTimeoutNanos = options.connections().requestBodyTimeout().toNanos();
        this.http2 = http2;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        if (!http2) {
            headerTimeout = ctx.pipeline().get(RequestHeaderTimeout.class);
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof HttpObject message)) {
            ctx.fireChannelRead(msg);
            return;
        }
        if (!http2 && (answering && reading == Reading.HEAD || backlog != null && !backlog.isEmpty())) {
            if (backlog == null) {
                backlog = new ArrayDeque<>(4);
            }
            backlog.add(message);
            // Bounded by what one read brought in: no more is read until the backlog is served.
            ctx.channel().config().setAutoRead(false);
            return;
        }
        handle(message);
    }

    private void handle(HttpObject message) {
        try {
            // One message may be both (a request without a body, or one the codec could not parse).
            if (message instanceof HttpRequest head) {
                onHead(head);
            }
            if (message instanceof HttpContent content) {
                onContent(content);
            }
        } finally {
            ReferenceCountUtil.release(message);
        }
    }

    private void onHead(HttpRequest head) {
        releaseBody();
        cancelBodyTimer();
        reader = null;
        if (headerTimeout != null) {
            headerTimeout.headersReceived();
        }
        if (!http2 && !upgradeOffered) {
            stopOfferingUpgrade();
        }
        request = head;
        received = 0;
        reading = Reading.DISCARD;
        answering = !http2;
        if (head.decoderResult().isFailure()) {
            Throwable cause = head.decoderResult().cause();
            HttpResponseStatus status = cause instanceof TooLongHttpLineException ? HttpResponseStatus.REQUEST_URI_TOO_LONG
                    : cause instanceof TooLongHttpHeaderException || cause instanceof TooLongFrameException
                            ? HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE : HttpResponseStatus.BAD_REQUEST;
            refuse(status, "Bad request: " + status.reasonPhrase());
            return;
        }
        exchange = newExchange(http2 || (HttpUtil.isKeepAlive(head) && !dispatcher.draining()));
        if (head instanceof Http2StreamCodec.ExtendedConnect) {
            connect(head);
            return;
        }
        if (!hasBodyMethod(head)) {
            // Answered once the request has ended, so that a response never races a protocol error in the rest of
            // the request (HTTP/2 stream state, trailers).
            awaitBody(Reading.UNTIL_END);
            return;
        }
        RequestDispatcher.BodyReader wanted = dispatcher.dispatch(head, exchange);
        if (wanted == null) {
            return;
        }
        if (HttpUtil.getContentLength(head, -1L) > maxBodyBytes) {
            tooLarge();
            return;
        }
        if (HttpUtil.is100ContinueExpected(head)) {
            ctx.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE,
                    Unpooled.EMPTY_BUFFER));
        }
        reader = wanted;
        awaitBody(Reading.BODY);
    }

    /**
     * A connection switches to HTTP/2 on its first request or not at all: the upgrade handler, which looks at every
     * request for an {@code Upgrade: h2c} header, leaves the pipeline once the first request has passed it. A server
     * may ignore an upgrade (RFC 9110, section 7.8), and RFC 9113 no longer defines this one.
     */
    private void stopOfferingUpgrade() {
        upgradeOffered = true;
        ChannelHandlerContext upgrade = ctx.pipeline().context(HttpServerUpgradeHandler.class);
        if (upgrade != null) {
            ctx.pipeline().remove(upgrade.handler());
        }
    }

    /**
     * An extended CONNECT's stream stays open once answered, so it is served on its head. Nothing more is read until
     * it is answered: a refusal reads on (and drops what follows), an accepted WebSocket takes over the stream.
     */
    private void connect(HttpRequest head) {
        ctx.channel().config().setAutoRead(false);
        HttpExchange answering = exchange;
        answering.onDone(() -> ctx.channel().config().setAutoRead(true));
        RequestDispatcher.BodyReader wanted = dispatcher.dispatch(head, answering);
        if (wanted != null) {
            wanted.read(head, HttpRoutes.NO_BODY, answering);
        }
    }

    /** Whether a request is dispatched on its head, so that it can be refused before its body is read. */
    private static boolean hasBodyMethod(HttpRequest head) {
        HttpMethod method = head.method();
        return HttpMethod.POST.equals(method) || HttpMethod.PUT.equals(method) || HttpMethod.PATCH.equals(method);
    }

    private void onContent(HttpContent content) {
        boolean last = content instanceof LastHttpContent;
        Reading was = reading;
        if (last) {
            reading = Reading.HEAD;
        }
        boolean expected = was == Reading.BODY || was == Reading.UNTIL_END;
        if (expected && content.decoderResult().isFailure()) {
            // A malformed body (a bad chunk size, say) or one cut short by the end of the connection: no request to
            // serve; the codec discards the rest of the input.
            stopReading(last);
            refuse(HttpResponseStatus.BAD_REQUEST, "Bad request: malformed body");
            return;
        }
        if (was == Reading.BODY) {
            gather(content, last);
        } else if (!last) {
            readMore();
        } else if (was == Reading.UNTIL_END) {
            cancelBodyTimer();
            HttpRequest head = request;
            request = null;
            RequestDispatcher.BodyReader wanted = dispatcher.dispatch(head, exchange);
            if (wanted != null) {
                wanted.read(head, HttpRoutes.NO_BODY, exchange);
            }
        }
    }

    private void gather(HttpContent content, boolean last) {
        received += content.content().readableBytes();
        if (received > maxBodyBytes) {
            stopReading(last);
            tooLarge();
            return;
        }
        byte[] bytes;
        if (last && body == null) {
            // The whole body in one piece, the common case: no buffer to gather it in.
            bytes = ByteBufUtil.getBytes(content.content());
        } else {
            if (content.content().isReadable()) {
                if (body == null) {
                    body = ctx.alloc().compositeBuffer(1024);
                }
                body.addComponent(true, content.content().retain());
            }
            if (!last) {
                readMore();
                return;
            }
            bytes = ByteBufUtil.getBytes(body);
        }
        releaseBody();
        cancelBodyTimer();
        RequestDispatcher.BodyReader wanted = reader;
        HttpRequest head = request;
        reader = null;
        // Not kept for an exchange that stays open (a listen, a stream): its request's headers are read by now.
        request = null;
        wanted.read(head, bytes, exchange);
    }

    /** The body of the current request is of no further use; what is left of it is dropped. */
    private void stopReading(boolean ended) {
        releaseBody();
        reader = null;
        if (!ended) {
            reading = Reading.DISCARD;
        }
    }

    /**
     * The body timer is armed at the end of the read ({@link #armBodyTimer}) only if the body is still to come: most
     * requests arrive whole in one read, and need no timer scheduled and cancelled.
     */
    private void awaitBody(Reading next) {
        reading = next;
        readMore();
    }

    private void armBodyTimer() {
        if ((reading == Reading.BODY || reading == Reading.UNTIL_END) && bodyTimer == null) {
            bodyTimer = ctx.executor().schedule(bodyTimeout, bodyTimeoutNanos, TimeUnit.NANOSECONDS);
        }
    }

    private void bodyTimedOut() {
        bodyTimer = null;
        if (reading != Reading.BODY && reading != Reading.UNTIL_END || !ctx.channel().isActive()) {
            return;
        }
        stopReading(false);
        SLOW.log("Request body from {0} not complete within {1} ms", ctx.channel().remoteAddress(),
                TimeUnit.NANOSECONDS.toMillis(bodyTimeoutNanos));
        refuse(HttpResponseStatus.REQUEST_TIMEOUT, "Request timeout: the body arrived too slowly");
        if (http2) {
            // The client may still be sending; the stream is of no further use.
            ctx.channel().close();
        }
    }

    /** Asks for more input when reading is paused (HTTP/1.1 with a backlog): the body may come in later segments. */
    private void readMore() {
        if (!http2 && !ctx.channel().config().isAutoRead()) {
            ctx.read();
        }
    }

    private void tooLarge() {
        refuse(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, "Payload too large: the limit is " + maxBodyBytes + " bytes");
    }

    /** Answers with an error and closes the connection (HTTP/1.1) or ends the stream (HTTP/2). */
    private void refuse(HttpResponseStatus status, String message) {
        cancelBodyTimer();
        exchange = newExchange(http2);
        if (!http2) {
            ctx.channel().config().setAutoRead(false);
        }
        dispatcher.reject(exchange, status, message);
    }

    private HttpExchange newExchange(boolean keepAlive) {
        if (!keepAlive) {
            // The connection ends with this response (lingering close reads and drops the rest).
            ending = Ending.AFTER_THIS_RESPONSE;
        }
        HttpExchange exchange = new HttpExchange(ctx, keepAlive, connections, pendingWriteWatches, exchangeDone);
        exchange.countStreamsIn(sseStreams);
        return exchange;
    }

    private void exchangeDone() {
        if (!http2) {
            ctx.executor().execute(nextRequest);
        }
    }

    /** HTTP/1.1, on the event loop once an exchange is done: serves the backlog, then reads on. */
    private void nextRequest() {
        answering = false;
        if (ending == Ending.AFTER_THIS_RESPONSE) {
            releaseBacklog();
            return;
        }
        if (!ctx.channel().isActive()) {
            return;
        }
        if (headerTimeout != null && reading != Reading.BODY) {
            headerTimeout.awaitingNextRequest();
        }
        while (backlog != null && !backlog.isEmpty() && !(answering && reading == Reading.HEAD)) {
            handle(backlog.poll());
        }
        // A request served from the backlog may still await its body, and no read may come to arm its timer.
        armBodyTimer();
        if (backlog != null && !backlog.isEmpty()) {
            return;
        }
        if (ending == Ending.AFTER_BACKLOG && !answering) {
            closeNow();
            return;
        }
        if (!ctx.channel().config().isAutoRead()) {
            ctx.channel().config().setAutoRead(true);
        }
    }

    private void cancelBodyTimer() {
        if (bodyTimer != null) {
            bodyTimer.cancel(false);
            bodyTimer = null;
        }
    }

    private void releaseBacklog() {
        if (backlog != null) {
            HttpObject message;
            while ((message = backlog.poll()) != null) {
                ReferenceCountUtil.release(message);
            }
        }
    }

    private void releaseBody() {
        if (body != null) {
            body.release();
            body = null;
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (reading == Reading.BODY) {
            // part of the body is still to come: it may arrive in a later TCP segment than the head
            readMore();
        }
        armBodyTimer();
        ctx.fireChannelReadComplete();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        releaseBody();
        cancelBodyTimer();
        releaseBacklog();
        HttpExchange e = exchange;
        if (e != null) {
            e.clientGone();
            e.release();
        }
        super.channelInactive(ctx);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof IdleStateEvent) {
            HttpExchange e = exchange;
            if (e == null || !e.isOpen()) {
                ctx.close();
            } else if (!e.streaming() && reading == Reading.BODY) {
                refuse(HttpResponseStatus.REQUEST_TIMEOUT, "Request timeout: the body arrived too slowly");
            }
            return;
        }
        super.userEventTriggered(ctx, evt);
    }

    private void closeWhenAnswered() {
        if (ending == Ending.KEEP_ALIVE) {
            ending = Ending.AFTER_BACKLOG;
        }
        if (!answering && (backlog == null || backlog.isEmpty())) {
            closeNow();
        }
    }

    private void closeNow() {
        // Unread input would make the kernel reset the connection, which can destroy the last answers.
        LingeringClose.close(ctx.channel());
    }

    /** The HTTP/1.1 codec's limit on requests read ahead of their answers; it discards the rest of the input. */
    private static boolean pipelineTooDeep(Throwable cause) {
        return cause instanceof DecoderException
                && cause.getCause() instanceof IllegalStateException tooDeep
                && tooDeep.getMessage() != null && tooDeep.getMessage().startsWith("maxPipelineDepth exceeded");
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (!http2 && pipelineTooDeep(cause)) {
            LOG.log(System.Logger.Level.DEBUG, "Too many pipelined requests from {0}: answering those read, then closing",
                    ctx.channel().remoteAddress());
            ctx.channel().config().setAutoRead(false);
            closeWhenAnswered();
            return;
        }
        if (http2 && (cause instanceof Http2FrameStreamException || cause instanceof Http2Exception.StreamException)) {
            // A stream error found by the HTTP/2 codec: the codec resets the stream with the right error code
            // (PROTOCOL_ERROR, FLOW_CONTROL_ERROR, ...); closing the stream here would reset it first with CANCEL.
            LOG.log(System.Logger.Level.DEBUG, "HTTP/2 stream error: {0}", cause.toString());
            cancelBodyTimer();
            stopReading(false);
            return;
        }
        LOG.log(System.Logger.Level.DEBUG, "Closing connection after an error: {0}", cause.toString());
        ctx.close();
    }
}
