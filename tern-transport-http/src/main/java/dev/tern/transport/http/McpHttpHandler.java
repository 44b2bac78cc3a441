package dev.tern.transport.http;

import dev.tern.protocol.ErrorCodes;

import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.handler.timeout.IdleStateEvent;

/**
 * Reads HTTP requests on one HTTP/1.1 connection or one HTTP/2 stream: checks Host, Origin, Content-Type, Accept
 * and size before reading a body (413 before buffering, also for chunked bodies), then hands complete requests to
 * the {@link McpEndpoint}. On HTTP/1.1 requests are answered one at a time, in order: a request that arrives while a
 * response is in progress (pipelining) waits in a backlog, and reading stops until the backlog is served. Reading is
 * not switched off for each request: that costs two {@code epoll_ctl} calls per request. End of input means the client
 * is gone (as before: its requests in progress are cancelled). Runs on the channel's event loop; never runs tool code.
 */
final class McpHttpHandler extends ChannelInboundHandlerAdapter {
    private static final System.Logger LOG = System.getLogger("dev.tern.transport.http");
    private static final RateLimitedLog SLOW = new RateLimitedLog(System.Logger.Level.INFO);
    private static final String JSON = "application/json";

    private final McpEndpoint endpoint;
    private final HttpOptions options;
    private final HostCheck hosts;
    private final boolean http2;

    private HttpRequest request;
    private HttpExchange exchange;
    private CompositeByteBuf body;
    private long received;
    private boolean discarding;
    private java.util.concurrent.ScheduledFuture<?> bodyTimer;
    /** HTTP/1.1: a body (or the end of a request) is awaited and its timer is not armed yet; it ends at bodyDeadline. */
    private boolean bodyAwaited;
    private long bodyDeadline;
    private Runnable deferred;
    private HttpRoutes.Pending routeRequest;
    /** The request being read was POSTed to the messages path of the 2024-11-05 transport. */
    private boolean legacyMessages;
    /** HTTP/1.1: a request has been read and its exchange is not done yet. */
    private boolean busy;
    /** HTTP/1.1: the current request's last content has been read; what follows belongs to the next request. */
    private boolean requestEnded = true;
    /** HTTP/1.1: messages of requests that arrived while {@link #busy}, in order. */
    private java.util.ArrayDeque<io.netty.handler.codec.http.HttpObject> backlog;
    /** HTTP/1.1: nothing more is read; close once the requests read so far are answered. */
    private boolean closeWhenAnswered;
    /** HTTP/1.1: the current response is the connection's last. */
    private boolean closing;

    McpHttpHandler(McpEndpoint endpoint, HttpOptions options, HostCheck hosts, boolean http2) {
        this.endpoint = endpoint;
        this.options = options;
        this.hosts = hosts;
        this.http2 = http2;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof io.netty.handler.codec.http.HttpObject httpObject)) {
            ctx.fireChannelRead(msg);
            return;
        }
        if (!http2 && (busy && requestEnded || backlog != null && !backlog.isEmpty())) {
            if (backlog == null) {
                backlog = new java.util.ArrayDeque<>(4);
            }
            backlog.add(httpObject);
            // Bounded by what one read brought in: no more is read until the backlog is served.
            ctx.channel().config().setAutoRead(false);
            return;
        }
        handle(ctx, httpObject);
    }

    private void handle(ChannelHandlerContext ctx, io.netty.handler.codec.http.HttpObject msg) {
        try {
            if (msg instanceof HttpRequest req) {
                onRequest(ctx, req);
            }
            if (msg instanceof HttpContent content) {
                onContent(ctx, content);
            }
        } finally {
            io.netty.util.ReferenceCountUtil.release(msg);
        }
    }

    private void onRequest(ChannelHandlerContext ctx, HttpRequest req) {
        releaseBody();
        deferred = null;
        cancelBodyTimer();
        if (!http2) {
            RequestHeaderTimeout guard = ctx.pipeline().get(RequestHeaderTimeout.class);
            if (guard != null) {
                guard.headersReceived();
            }
        }
        request = req;
        received = 0;
        discarding = true;
        busy = !http2;
        requestEnded = false;
        if (req.decoderResult().isFailure()) {
            Throwable cause = req.decoderResult().cause();
            HttpResponseStatus status = cause instanceof TooLongHttpLineException ? HttpResponseStatus.REQUEST_URI_TOO_LONG
                    : cause instanceof TooLongHttpHeaderException || cause instanceof TooLongFrameException
                            ? HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE : HttpResponseStatus.BAD_REQUEST;
            reject(ctx, status, "Bad request: " + status.reasonPhrase(), true);
            return;
        }
        boolean keepAlive = http2 || (HttpUtil.isKeepAlive(req) && !endpoint.draining());
        exchange = newExchange(ctx, keepAlive);
        if (!req.method().equals(HttpMethod.POST)) {
            // Requests without a JSON-RPC body are answered once they have ended (any body is discarded), so a
            // response never races a protocol error in the rest of the request (HTTP/2 stream state, trailers).
            deferred = () -> route(ctx, req);
            startBodyTimer(ctx);
            readMore(ctx);
            return;
        }
        route(ctx, req);
    }

    private void route(ChannelHandlerContext ctx, HttpRequest req) {
        HttpHeaders headers = req.headers();
        String path = pathOf(req.uri());
        if (path.equals("/health") || path.equals("/health/live") || path.equals("/health/ready")) {
            boolean down = endpoint.draining() && !path.equals("/health/live");
            exchange.json(down ? HttpResponseStatus.SERVICE_UNAVAILABLE : HttpResponseStatus.OK,
                    McpEndpoint.health(endpoint.draining()));
            return;
        }
        routeRequest = null;
        boolean legacySse = endpoint.legacySse().serves(path);
        legacyMessages = legacySse && endpoint.legacySse().isMessagesPath(path);
        if (!path.equals(options.path()) && !legacySse && routed(ctx, req)) {
            return;
        }
        if (!path.equals(options.path()) && !legacySse) {
            endpoint.error(exchange, HttpResponseStatus.NOT_FOUND, null, ErrorCodes.INVALID_REQUEST,
                    "Not found: the MCP endpoint is " + options.path());
            return;
        }
        if (!hosts.hostAllowed(headers.get(HttpHeaderNames.HOST))) {
            endpoint.error(exchange, HttpResponseStatus.FORBIDDEN, null, ErrorCodes.INVALID_REQUEST,
                    "Forbidden: Host header not allowed");
            return;
        }
        String origin = headers.get(HttpHeaderNames.ORIGIN);
        if (!hosts.originAllowed(origin)) {
            endpoint.error(exchange, HttpResponseStatus.FORBIDDEN, null, ErrorCodes.INVALID_REQUEST,
                    "Forbidden: Origin not allowed");
            return;
        }
        if (origin != null) {
            exchange.header(HttpHeaderNames.ACCESS_CONTROL_ALLOW_ORIGIN, origin)
                    .header(HttpHeaderNames.VARY, HttpHeaderNames.ORIGIN)
                    .header(HttpHeaderNames.ACCESS_CONTROL_EXPOSE_HEADERS, McpEndpoint.SESSION_ID);
        }
        HttpMethod method = req.method();
        if (endpoint.draining() && !method.equals(HttpMethod.OPTIONS)) {
            endpoint.unavailable(exchange);
            return;
        }
        if (method.equals(HttpMethod.OPTIONS)) {
            exchange.header(HttpHeaderNames.ACCESS_CONTROL_ALLOW_METHODS, "POST, GET, DELETE")
                    .header(HttpHeaderNames.ACCESS_CONTROL_ALLOW_HEADERS, "content-type, accept, authorization, "
                            + "mcp-session-id, mcp-protocol-version, mcp-method, mcp-name, last-event-id")
                    .header(HttpHeaderNames.ACCESS_CONTROL_MAX_AGE, 600);
            exchange.empty(HttpResponseStatus.NO_CONTENT);
            return;
        }
        if (legacySse && !method.equals(legacySsePathMethod(path))) {
            exchange.header(HttpHeaderNames.ALLOW, legacySsePathMethod(path));
            endpoint.error(exchange, HttpResponseStatus.METHOD_NOT_ALLOWED, null, ErrorCodes.INVALID_REQUEST,
                    "Method not allowed: open the SSE stream with GET, send messages with POST");
            return;
        }
        if (legacySse && method.equals(HttpMethod.GET)) {
            endpoint.legacySse().open(headers, exchange, endpoint);
            return;
        }
        if (!method.equals(HttpMethod.POST)) {
            endpoint.handleWithoutBody(method, headers, exchange);
            return;
        }
        String contentType = headers.get(HttpHeaderNames.CONTENT_TYPE);
        if (!isJson(contentType)) {
            endpoint.error(exchange, HttpResponseStatus.UNSUPPORTED_MEDIA_TYPE, null, ErrorCodes.INVALID_REQUEST,
                    "Unsupported media type: the body must be application/json");
            return;
        }
        if (!legacySse && (!McpEndpoint.accepts(headers, "application/json")
                || !McpEndpoint.accepts(headers, "text/event-stream"))) {
            endpoint.error(exchange, HttpResponseStatus.NOT_ACCEPTABLE, null, ErrorCodes.INVALID_REQUEST,
                    "Not acceptable: Accept must list application/json and text/event-stream");
            return;
        }
        long length = HttpUtil.getContentLength(req, -1L);
        if (length > options.limits().maxMessageBytes()) {
            reject(ctx, HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, "Payload too large: the limit is "
                    + options.limits().maxMessageBytes() + " bytes", true);
            return;
        }
        if (HttpUtil.is100ContinueExpected(req)) {
            ctx.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE, Unpooled.EMPTY_BUFFER));
        }
        discarding = false;
        startBodyTimer(ctx);
        readMore(ctx);
    }

    /** Whether a Content-Type names {@code application/json} (any case, parameters and spaces around it ignored). */
    static boolean isJson(String contentType) {
        if (contentType == null) {
            return false;
        }
        int semicolon = contentType.indexOf(';');
        int end = semicolon < 0 ? contentType.length() : semicolon;
        int start = 0;
        while (start < end && Character.isWhitespace(contentType.charAt(start))) {
            start++;
        }
        while (end > start && Character.isWhitespace(contentType.charAt(end - 1))) {
            end--;
        }
        if (end - start != JSON.length()) {
            return false;
        }
        for (int i = 0; i < JSON.length(); i++) {
            char c = contentType.charAt(start + i);
            if ((c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c) != JSON.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** Asks for more input when reading is paused (HTTP/1.1 with a backlog): the body may come in later segments. */
    private void readMore(ChannelHandlerContext ctx) {
        if (!http2 && !ctx.channel().config().isAutoRead()) {
            ctx.read();
        }
    }

    /** The decoded path of a request URI; the URI itself in the common case of a plain path. */
    private static String pathOf(String uri) {
        for (int i = 0; i < uri.length(); i++) {
            char c = uri.charAt(i);
            if (c == '?' || c == '%' || c == '#') {
                return new QueryStringDecoder(uri).path();
            }
        }
        return uri;
    }

    private HttpMethod legacySsePathMethod(String path) {
        return endpoint.legacySse().isMessagesPath(path) ? HttpMethod.POST : HttpMethod.GET;
    }

    private void startBodyTimer(ChannelHandlerContext ctx) {
        long timeout = options.connections().requestBodyTimeout().toNanos();
        if (http2) {
            bodyTimer = ctx.executor().schedule(() -> bodyTimedOut(ctx), timeout, java.util.concurrent.TimeUnit.NANOSECONDS);
        } else {
            // HTTP/1.1: armed at the end of the read (channelReadComplete) only if the body is still to come; most
            // requests arrive whole in one read, and need no timer scheduled and cancelled.
            bodyDeadline = System.nanoTime() + timeout;
            bodyAwaited = true;
        }
    }

    private void armBodyTimer(ChannelHandlerContext ctx) {
        if (bodyAwaited && bodyTimer == null) {
            bodyAwaited = false;
            long left = Math.max(0, bodyDeadline - System.nanoTime());
            bodyTimer = ctx.executor().schedule(() -> bodyTimedOut(ctx), left, java.util.concurrent.TimeUnit.NANOSECONDS);
        }
    }

    private void bodyTimedOut(ChannelHandlerContext ctx) {
        bodyTimer = null;
        if ((discarding && deferred == null) || !ctx.channel().isActive()) {
            return;
        }
        deferred = null;
        releaseBody();
        discarding = true;
        SLOW.log("Request body from {0} not complete within {1} ms", ctx.channel().remoteAddress(),
                options.connections().requestBodyTimeout().toMillis());
        reject(ctx, HttpResponseStatus.REQUEST_TIMEOUT, "Request timeout: the body arrived too slowly", true);
        if (http2) {
            // The client may still be sending; the stream is of no further use.
            ctx.channel().close();
        }
    }

    private HttpExchange newExchange(ChannelHandlerContext ctx, boolean keepAlive) {
        if (!keepAlive) {
            // The connection ends with this response (lingering close reads and drops the rest).
            closing = true;
        }
        return new HttpExchange(ctx, keepAlive, options.connections(), endpoint.pendingWriteWatches(),
                () -> exchangeDone(ctx));
    }

    private void onContent(ChannelHandlerContext ctx, HttpContent content) {
        boolean last = content instanceof LastHttpContent;
        if (last) {
            requestEnded = true;
        }
        if (content.decoderResult().isFailure() && (!discarding || deferred != null)) {
            // A malformed body (a bad chunk size, say) or one cut short by the end of the connection: no request
            // to serve; the codec discards the rest of the input.
            releaseBody();
            discarding = true;
            deferred = null;
            reject(ctx, HttpResponseStatus.BAD_REQUEST, "Bad request: malformed body", true);
            return;
        }
        if (last && deferred != null) {
            Runnable action = deferred;
            deferred = null;
            request = null;
            cancelBodyTimer();
            action.run();
            return;
        }
        if (discarding) {
            if (!last) {
                readMore(ctx);
            }
            return;
        }
        received += content.content().readableBytes();
        if (received > options.limits().maxMessageBytes()) {
            releaseBody();
            discarding = true;
            reject(ctx, HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, "Payload too large: the limit is "
                    + options.limits().maxMessageBytes() + " bytes", true);
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
                readMore(ctx);
                return;
            }
            bytes = ByteBufUtil.getBytes(body);
        }
        releaseBody();
        discarding = true;
        cancelBodyTimer();
        HttpRoutes.Pending routed = routeRequest;
        if (routed != null) {
            routeRequest = null;
            routed.serve(bytes, exchange, endpoint);
            return;
        }
        // Not kept for an exchange that stays open (a listen, a stream): its request's headers are read by now.
        HttpRequest served = request;
        request = null;
        if (legacyMessages) {
            endpoint.legacySse().post(served.uri(), served.headers(), bytes, exchange, endpoint);
        } else {
            endpoint.handlePost(served.headers(), bytes, exchange);
        }
    }

    /** Answers with an error and closes the connection (HTTP/1.1) or ends the stream (HTTP/2). */
    private void reject(ChannelHandlerContext ctx, HttpResponseStatus status, String message, boolean close) {
        cancelBodyTimer();
        exchange = newExchange(ctx, http2 || !close);
        if (close && !http2) {
            ctx.channel().config().setAutoRead(false);
        }
        endpoint.error(exchange, status, null, ErrorCodes.INVALID_REQUEST, message);
    }

    private void exchangeDone(ChannelHandlerContext ctx) {
        if (!http2) {
            ctx.executor().execute(() -> nextRequest(ctx));
        }
    }

    /** HTTP/1.1, on the event loop once an exchange is done: serves the backlog, then reads on. */
    private void nextRequest(ChannelHandlerContext ctx) {
        busy = false;
        if (closing) {
            releaseBacklog();
            return;
        }
        if (!ctx.channel().isActive()) {
            return;
        }
        RequestHeaderTimeout guard = ctx.pipeline().get(RequestHeaderTimeout.class);
        if (guard != null && discarding) {
            guard.awaitingNextRequest();
        }
        while (backlog != null && !backlog.isEmpty() && !(busy && requestEnded)) {
            handle(ctx, backlog.poll());
        }
        // A request served from the backlog may still await its body, and no read may come to arm its timer.
        armBodyTimer(ctx);
        if (backlog != null && !backlog.isEmpty()) {
            return;
        }
        if (closeWhenAnswered && !busy) {
            closeNow(ctx);
            return;
        }
        if (!ctx.channel().config().isAutoRead()) {
            ctx.channel().config().setAutoRead(true);
        }
    }

    private void cancelBodyTimer() {
        bodyAwaited = false;
        if (bodyTimer != null) {
            bodyTimer.cancel(false);
            bodyTimer = null;
        }
    }

    private void releaseBacklog() {
        if (backlog != null) {
            io.netty.handler.codec.http.HttpObject msg;
            while ((msg = backlog.poll()) != null) {
                io.netty.util.ReferenceCountUtil.release(msg);
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
        if (!discarding) {
            // part of the body is still to come: it may arrive in a later TCP segment than the head
            readMore(ctx);
        }
        armBodyTimer(ctx);
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
            } else if (!e.streaming() && request != null && !discarding) {
                reject(ctx, HttpResponseStatus.REQUEST_TIMEOUT, "Request timeout: the body arrived too slowly", true);
            }
            return;
        }
        super.userEventTriggered(ctx, evt);
    }

    private void closeWhenAnswered(ChannelHandlerContext ctx) {
        closeWhenAnswered = true;
        if (!busy && (backlog == null || backlog.isEmpty())) {
            closeNow(ctx);
        }
    }

    private static void closeNow(ChannelHandlerContext ctx) {
        // Unread input would make the kernel reset the connection, which can destroy the last answers.
        LingeringClose.close(ctx.channel());
    }

    /** The HTTP/1.1 codec's limit on requests read ahead of their answers; it discards the rest of the input. */
    private static boolean pipelineTooDeep(Throwable cause) {
        return cause instanceof io.netty.handler.codec.DecoderException
                && cause.getCause() instanceof IllegalStateException tooDeep
                && tooDeep.getMessage() != null && tooDeep.getMessage().startsWith("maxPipelineDepth exceeded");
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (!http2 && pipelineTooDeep(cause)) {
            LOG.log(System.Logger.Level.DEBUG, "Too many pipelined requests from {0}: answering those read, then closing",
                    ctx.channel().remoteAddress());
            ctx.channel().config().setAutoRead(false);
            closeWhenAnswered(ctx);
            return;
        }
        if (http2 && (cause instanceof io.netty.handler.codec.http2.Http2FrameStreamException
                || cause instanceof io.netty.handler.codec.http2.Http2Exception.StreamException)) {
            // A stream error found by the HTTP/2 codec: the codec resets the stream with the right error code
            // (PROTOCOL_ERROR, FLOW_CONTROL_ERROR, ...); closing the stream here would reset it first with CANCEL.
            LOG.log(System.Logger.Level.DEBUG, "HTTP/2 stream error: {0}", cause.toString());
            deferred = null;
            cancelBodyTimer();
            releaseBody();
            discarding = true;
            return;
        }
        LOG.log(System.Logger.Level.DEBUG, "Closing connection after an error: {0}", cause.toString());
        ctx.close();
    }

    // ---------------------------------------------------------------- plain HTTP routes and the REST façade

    /** Serves a request to a plain route ({@link HttpRoutes}); false when no route is mounted at its path. */
    private boolean routed(ChannelHandlerContext ctx, HttpRequest req) {
        HttpRoutes.PathMatch match = options.routes().match(req);
        if (match == null) {
            return false;
        }
        HttpRoutes.Pending pending = options.routes().open(req, match, exchange, hosts);
        if (pending == null) {
            return true;
        }
        if (!pending.wantsBody()) {
            pending.serve(HttpRoutes.NO_BODY, exchange, endpoint);
            return true;
        }
        if (HttpUtil.getContentLength(req, -1L) > options.limits().maxMessageBytes()) {
            reject(ctx, HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, "Payload too large: the limit is "
                    + options.limits().maxMessageBytes() + " bytes", true);
            return true;
        }
        if (HttpUtil.is100ContinueExpected(req)) {
            ctx.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE, Unpooled.EMPTY_BUFFER));
        }
        routeRequest = pending;
        discarding = false;
        startBodyTimer(ctx);
        if (!http2) {
            ctx.read();
        }
        return true;
    }
}
