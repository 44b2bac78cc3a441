package dev.tern.transport.http;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.tern.protocol.JsonRpcCodec;
import dev.tern.protocol.JsonRpcMessage;
import dev.tern.protocol.MessageCodec;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;

/**
 * The response to one HTTP request: a single JSON body, or an SSE stream that starts when the first message that
 * is not the final response arrives. Thread-safe: handlers on any thread write through it, in the order they call.
 *
 * <p>Writes never block the caller. Against clients that stop reading, the bytes queued for this exchange are
 * counted: when more than the buffer bound are queued, or the queued bytes make no progress for the write timeout,
 * the exchange is dropped as if the client had gone (the HTTP/2 stream is reset, the HTTP/1.1 connection closed).
 */
final class HttpExchange {
    private static final byte[] DATA = "data: ".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] ID = "id: ".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] END_EVENT = "\n\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] KEEP_ALIVE = ":\n\n".getBytes(StandardCharsets.US_ASCII);

    enum Mode { PENDING, SSE, DONE }

    /** Room for a typical JSON answer, so most are written without the buffer growing. */
    private static final int BODY_BUFFER_SIZE = 2048;
    private static final RateLimitedLog SLOW = new RateLimitedLog(System.Logger.Level.INFO);
    private static final VarHandle QUEUED;
    private static final VarHandle COMPLETED_WRITES;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            QUEUED = lookup.findVarHandle(HttpExchange.class, "queued", long.class);
            COMPLETED_WRITES = lookup.findVarHandle(HttpExchange.class, "completedWrites", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final ChannelHandlerContext ctx;
    private final boolean keepAlive;
    private final long writeTimeoutNanos;
    private final long maxQueuedBytes;
    /** Bytes written and not yet taken by the connection, and writes completed: updated through the handles below. */
    private volatile long queued;
    private volatile long completedWrites;
    private ScheduledFuture<?> writeWatch;
    /** The transport's count of write watches pending, this exchange's included. */
    private final AtomicInteger pendingWatches;
    private long writesAtLastWatch;
    private dev.tern.protocol.RequestId requestId;
    private final java.util.List<Runnable> onDone = new java.util.ArrayList<>(2);
    private static final io.netty.util.AsciiString X_CONTENT_TYPE_OPTIONS =
            io.netty.util.AsciiString.cached("x-content-type-options");
    private static final io.netty.util.AsciiString NOSNIFF = io.netty.util.AsciiString.cached("nosniff");
    /** Made on first use: most exchanges add none. */
    private HttpHeaders extraHeaders;
    private Mode mode = Mode.PENDING;
    /** Whether the connection's {@link ConnectionOutbox} sends this exchange's stream keep-alive comments. */
    private boolean keptAlive;
    private Duration streamKeepAlive;
    private Runnable onClientGone;
    private volatile ServerTiming timing;
    private volatile dev.tern.server.observe.RequestObservation observation;
    /** When the observed POST's head arrived ({@link System#nanoTime()}). */
    private volatile long observedSince;
    /** Makes an observation for each member of a batch; null for a POST of one message. */
    private java.util.function.Supplier<dev.tern.server.observe.RequestObservation> members;
    private AtomicInteger openStreams;
    /** A successful JSON answer goes as the one event of an SSE stream. */
    private boolean sseReplies;
    /** Set on the event loop before the request is handed on, read where its answer is sent. */
    private volatile MessageCodec replyCodec;
    /** Written on the event loop and waiting for its {@link FlushBatch}; only the event loop reads or sets it. */
    private boolean flushPending;
    /** Writes waiting in the connection's {@link ConnectionOutbox}: later writes queue behind them, keeping the order. */
    private int deferred;
    /** Set once the exchange no longer counts among the requests in flight (it may count while it is not done). */
    private boolean slotGivenBack;
    /** Who sent the request, once an authorization server's token vouched for it. */
    private volatile dev.tern.auth.AccessPrincipal principal;

    HttpExchange(ChannelHandlerContext ctx, boolean keepAlive, HttpOptions.ConnectionLimits limits,
            AtomicInteger pendingWatches, Runnable onDone) {
        this.ctx = ctx;
        this.pendingWatches = pendingWatches;
        this.keepAlive = keepAlive;
        this.writeTimeoutNanos = limits.writeTimeout().toNanos();
        this.maxQueuedBytes = limits.maxBufferedResponseBytes();
        this.onDone.add(onDone);
    }

    void principal(dev.tern.auth.AccessPrincipal principal) {
        this.principal = principal;
    }

    /** The authenticated principal of the request, or {@code null} when no token was checked. */
    dev.tern.auth.AccessPrincipal principal() {
        return principal;
    }

    /** The id of the JSON-RPC request this exchange answers, once known. */
    synchronized void requestId(dev.tern.protocol.RequestId id) {
        this.requestId = id;
    }

    synchronized dev.tern.protocol.RequestId requestId() {
        return requestId;
    }

    /** Bytes written for this exchange and not yet taken by the client's connection. */
    long queuedBytes() {
        return queued;
    }

    /** True the first time only: the exchange gives back its place among the requests in flight. */
    synchronized boolean giveBackSlot() {
        if (slotGivenBack) {
            return false;
        }
        slotGivenBack = true;
        return true;
    }

    /** Runs {@code action} once when the exchange is done, whichever way it ends. */
    synchronized void onDone(Runnable action) {
        if (mode == Mode.DONE) {
            action.run();
        } else {
            onDone.add(action);
        }
    }

    private void done() {
        for (Runnable r : onDone) {
            try {
                r.run();
            } catch (RuntimeException ignored) {
                // one failing callback must not keep the others from running
            }
        }
        onDone.clear();
    }

    /** Answers this exchange's successful JSON body as the one event of an SSE stream. */
    synchronized void sseReplies() {
        this.sseReplies = true;
    }

    /** Asks for a {@code Server-Timing} header on this exchange's JSON, CBOR or MessagePack response. */
    void timing(ServerTiming timing) {
        this.timing = timing;
    }

    /** What the server's observer is told of this exchange's MCP request, when it observes. */
    void observation(dev.tern.server.observe.RequestObservation observation, long since) {
        this.observation = observation;
        this.observedSince = since;
    }

    long observedSince() {
        return observedSince;
    }

    /** From now on every taking of the observation gets one of its own from {@code members}: a batch's members. */
    synchronized void observeMembers(
            java.util.function.Supplier<dev.tern.server.observe.RequestObservation> members) {
        this.observation = null;
        this.members = members;
    }

    dev.tern.server.observe.RequestObservation observation() {
        return observation;
    }

    /** Where this exchange counts itself while it is an open SSE stream. */
    void countStreamsIn(AtomicInteger streams) {
        this.openStreams = streams;
    }

    /**
     * The observation, handed over once: to the server that answers the request, or to what refuses it. In a batch,
     * a new one each time, for each member.
     */
    synchronized dev.tern.server.observe.RequestObservation takeObservation() {
        if (members != null) {
            return members.get();
        }
        var o = observation;
        observation = null;
        return o;
    }

    /** How this exchange came: each HTTP/2 stream is a channel of its own. */
    dev.tern.server.observe.Transport transport() {
        return ctx.channel() instanceof io.netty.handler.codec.http2.Http2StreamChannel
                ? dev.tern.server.observe.Transport.HTTP_2
                : dev.tern.server.observe.Transport.HTTP_1_1;
    }

    /** The timing being collected for this exchange, or {@code null} when none is asked for. */
    ServerTiming timing() {
        return timing;
    }

    /** The client certificate chain verified in the connection's TLS handshake; empty if none or not TLS. */
    java.util.List<java.security.cert.X509Certificate> peerCertificates() {
        return TlsPeer.certificates(ctx.channel());
    }

    /** A header every response of this exchange carries (e.g. {@code Mcp-Session-Id}). */
    synchronized HttpExchange header(CharSequence name, Object value) {
        extraHeaders().set(name, value);
        return this;
    }

    private HttpHeaders extraHeaders() {
        if (extraHeaders == null) {
            extraHeaders = new DefaultHttpHeaders();
        }
        return extraHeaders;
    }

    synchronized boolean isOpen() {
        return mode != Mode.DONE && ctx.channel().isActive();
    }

    synchronized boolean streaming() {
        return mode == Mode.SSE;
    }

    /** The exchange's connection (HTTP/1.1) or stream (HTTP/2). */
    io.netty.channel.Channel channel() {
        return ctx.channel();
    }

    /** The event loop of the exchange's connection. */
    io.netty.util.concurrent.EventExecutor executor() {
        return ctx.executor();
    }

    /** The address the client is counted by, as {@link Connections} counted its connection. */
    String clientAddress() {
        return ClientAddress.describe(Connections.countedAddress(ctx.channel()));
    }

    /** What to do if the client goes away before the exchange is done. */
    synchronized void onClientGone(Runnable action) {
        this.onClientGone = action;
    }

    /** The codec of a binary answer the client asked for ({@link Encodings}); {@code null}: JSON. */
    void replyCodec(MessageCodec codec) {
        this.replyCodec = codec;
    }

    MessageCodec replyCodec() {
        return replyCodec;
    }

    /**
     * Answers with {@code message} in the {@link #replyCodec} format (with {@code Server-Timing} when asked for, as
     * a JSON body has it), or in JSON when there is none or a stream is already open (an SSE event is text), and ends
     * the exchange.
     */
    synchronized void reply(HttpResponseStatus status, JsonRpcCodec json, JsonRpcMessage message) {
        if (replyCodec != null && mode == Mode.PENDING) {
            ServerTiming timing = this.timing;
            long started = timing == null ? 0 : System.nanoTime();
            byte[] body = replyCodec.encode(message);
            if (timing != null) {
                header(ServerTiming.HEADER, timing.header(started, System.nanoTime()));
            }
            finish(status, replyCodec.format().mediaType(), Unpooled.wrappedBuffer(body));
        } else {
            json(status, encode(json, message));
        }
    }

    /** Answers with one JSON body and ends the exchange; if a stream is open, the body is its last event. */
    synchronized void json(HttpResponseStatus status, byte[] body) {
        json(status, Unpooled.wrappedBuffer(body));
    }

    /**
     * {@code message} encoded into a pooled buffer, for {@link #json(HttpResponseStatus, ByteBuf)}; when
     * {@code Server-Timing} is asked for, the header is set with the encoding's time as its last part.
     */
    ByteBuf encode(JsonRpcCodec codec, JsonRpcMessage message) {
        ServerTiming timing = this.timing;
        long started = timing == null ? 0 : System.nanoTime();
        ByteBuf body = ctx.alloc().ioBuffer(BODY_BUFFER_SIZE);
        try {
            codec.encode(message, new ByteBufOutputStream(body));
        } catch (RuntimeException | Error e) {
            body.release();
            throw e;
        }
        if (timing != null) {
            header(ServerTiming.HEADER, timing.header(started, System.nanoTime()));
        }
        return body;
    }

    /** Runs {@code action} on {@code loop} later, or here when the loop has stopped (rather than never). */
    static void later(java.util.concurrent.Executor loop, Runnable action) {
        try {
            loop.execute(action);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            action.run();
        }
    }

    /**
     * Answers with one JSON body and ends the exchange, as {@link #json(HttpResponseStatus, byte[])}; takes
     * ownership of {@code body}.
     */
    synchronized void json(HttpResponseStatus status, ByteBuf body) {
        if (mode != Mode.PENDING) {
            if (mode == Mode.SSE) {
                writeEvent(ByteBufUtil.getBytes(body), null);
                end();
            }
            body.release();
            return;
        }
        if (sseReplies && status.equals(HttpResponseStatus.OK)) {
            // A stream of one event, known whole: sent with its length like a JSON body (one write), not chunked.
            ByteBuf event = Unpooled.wrappedBuffer(Unpooled.wrappedBuffer(DATA), body, Unpooled.wrappedBuffer(END_EVENT));
            extraHeaders().set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_CACHE);
            finish(status, HttpHeaderValues.TEXT_EVENT_STREAM, event);
            return;
        }
        finish(status, HttpHeaderValues.APPLICATION_JSON, body);
    }

    /** Answers with one body of the given media type and ends the exchange (plain HTTP routes). */
    synchronized void respond(HttpResponseStatus status, CharSequence contentType, byte[] body) {
        if (mode != Mode.PENDING) {
            return;
        }
        finish(status, contentType, Unpooled.wrappedBuffer(body));
    }

    /** Answers with no body and ends the exchange. */
    synchronized void empty(HttpResponseStatus status) {
        if (mode != Mode.PENDING) {
            return;
        }
        finish(status, null, Unpooled.EMPTY_BUFFER);
    }

    /** The whole response: {@code body} (owned from here) of {@code contentType} (none if null), with its length. */
    private void finish(HttpResponseStatus status, CharSequence contentType, ByteBuf body) {
        // A body sent with its length has no trailers: no table is made for them.
        DefaultFullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, body,
                DefaultHttpHeadersFactory.headersFactory().newHeaders(), EmptyHttpHeaders.INSTANCE);
        HttpHeaders h = response.headers();
        if (contentType != null) {
            h.set(HttpHeaderNames.CONTENT_TYPE, contentType);
        }
        h.setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
        addExtraHeaders(h);
        finish(response);
    }

    /** Opens the SSE stream now (for GET streams and subscriptions), with an optional priming event. */
    synchronized void startStream(String primingEventId, Duration retry, Duration keepAliveEvery) {
        if (mode != Mode.PENDING) {
            return;
        }
        DefaultHttpResponse response = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        HttpHeaders h = response.headers();
        h.set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.TEXT_EVENT_STREAM);
        h.set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_CACHE);
        h.set("x-accel-buffering", "no");
        h.set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
        addExtraHeaders(h);
        write(response, 0, false);
        mode = Mode.SSE;
        if (openStreams != null) {
            AtomicInteger streams = openStreams;
            streams.incrementAndGet();
            onDone.add(streams::decrementAndGet);
        }
        if (primingEventId != null) {
            StringBuilder priming = new StringBuilder();
            priming.append("id: ").append(primingEventId).append('\n');
            if (retry != null) {
                priming.append("retry: ").append(retry.toMillis()).append('\n');
            }
            priming.append("data: \n\n");
            ByteBuf primer = Unpooled.copiedBuffer(priming, StandardCharsets.UTF_8);
            write(new DefaultHttpContent(primer), primer.readableBytes(), false);
        }
        if (deferred == 0 && !flushAfterTurn()) {
            ctx.flush();
        }
        if (keepAliveEvery != null) {
            keptAlive = true;
            ConnectionOutbox.of(ctx.channel()).keepAlive(this, keepAliveEvery);
        }
    }

    /**
     * The SSE stream this exchange opens for its events gets a keep-alive comment this often: a stream that may stay
     * quiet for long (a listen) would otherwise be cut by the idle timeout, this server's or a proxy's.
     */
    synchronized void keepStreamAlive(Duration every) {
        this.streamKeepAlive = every;
    }

    /** Sends one message as an SSE event (opening the stream if needed); ends the stream when {@code last}. */
    synchronized void event(byte[] json, String eventId, boolean last) {
        if (mode == Mode.DONE) {
            return;
        }
        if (mode == Mode.PENDING) {
            startStream(null, null, streamKeepAlive);
        }
        writeEvent(json, eventId);
        if (last) {
            end();
        }
    }

    /** Sends an event with a name and a one-line text payload on an open stream. */
    synchronized void namedEvent(String name, String data) {
        if (mode != Mode.SSE) {
            return;
        }
        ByteBuf buf = Unpooled.copiedBuffer("event: " + name + "\ndata: " + data + "\n\n", StandardCharsets.UTF_8);
        write(new DefaultHttpContent(buf), buf.readableBytes(), true);
    }

    /** Ends an open stream, optionally telling the client when to reconnect. */
    synchronized void end(Duration retry) {
        if (mode != Mode.SSE) {
            return;
        }
        if (retry != null) {
            ByteBuf hint = Unpooled.copiedBuffer("retry: " + retry.toMillis() + "\n\n", StandardCharsets.US_ASCII);
            write(new DefaultHttpContent(hint), hint.readableBytes(), false);
        }
        end();
    }

    /**
     * Ends the exchange without a JSON-RPC response (a cancelled request, a closed session): an open stream just ends,
     * a response not yet started becomes an empty event stream; either way with an optional {@code retry} hint.
     */
    synchronized void endWithoutResponse(Duration retry) {
        if (mode == Mode.PENDING) {
            startStream(null, null, null);
        }
        end(retry);
    }

    /**
     * The client went away: the exchange ends, then its client-gone action runs outside this exchange's lock, as
     * that action (a channel's close) takes locks of its own, under which other threads write to this exchange.
     */
    void clientGone() {
        Runnable action;
        synchronized (this) {
            if (mode == Mode.DONE) {
                return;
            }
            mode = Mode.DONE;
            cancelKeepAlive();
            action = onClientGone;
            done();
        }
        if (action == null) {
            return;
        }
        if (Thread.holdsLock(this)) {
            // Dropped while writing to this exchange: the action runs once the write is over.
            later(ctx.executor(), action);
        } else {
            action.run();
        }
    }

    private void writeEvent(byte[] json, String eventId) {
        if (queued > maxQueuedBytes) {
            drop("more than " + maxQueuedBytes + " bytes queued for a client that is not reading");
            return;
        }
        int size = json.length + DATA.length + END_EVENT.length + (eventId == null ? 0 : ID.length + eventId.length() + 1);
        ByteBuf buf = ctx.alloc().buffer(size);
        if (eventId != null) {
            buf.writeBytes(ID).writeCharSequence(eventId, StandardCharsets.US_ASCII);
            buf.writeByte('\n');
        }
        buf.writeBytes(DATA).writeBytes(json).writeBytes(END_EVENT);
        write(new DefaultHttpContent(buf), size, true);
    }

    /** Writes a keep-alive comment on the open stream; called by the connection's outbox, on the event loop. */
    void keepAlive() {
        synchronized (this) {
            if (mode == Mode.SSE && ctx.channel().isActive() && ctx.channel().isWritable()) {
                write(new DefaultHttpContent(Unpooled.wrappedBuffer(KEEP_ALIVE)), KEEP_ALIVE.length, true);
            }
        }
    }

    private void addExtraHeaders(HttpHeaders headers) {
        // Every response: no client may guess another type than the one declared (a JSON body sniffed as HTML).
        headers.set(X_CONTENT_TYPE_OPTIONS, NOSNIFF);
        if (extraHeaders != null) {
            headers.add(extraHeaders);
        }
    }

    /**
     * Writes (and flushes, if asked) one message, counting its bytes until the connection has taken them. On the event
     * loop the flush waits for the end of the loop's turn ({@link FlushBatch}); from another thread the message joins
     * the connection's {@link ConnectionOutbox}, written and flushed with the other streams' by one task of the loop.
     */
    private io.netty.channel.ChannelFuture write(Object message, long bytes, boolean flush) {
        QUEUED.getAndAdd(this, bytes);
        boolean batched;
        io.netty.channel.ChannelFuture f;
        if (deferred > 0 || !ctx.executor().inEventLoop()) {
            io.netty.channel.ChannelPromise promise = ctx.newPromise();
            deferred++;
            ConnectionOutbox.of(ctx.channel()).add(this, message, promise);
            f = promise;
            batched = true;
        } else {
            batched = flush && flushAfterTurn();
            f = flush && !batched ? ctx.writeAndFlush(message) : ctx.write(message);
        }
        f.addListener(done -> {
            long left = (long) QUEUED.getAndAdd(this, -bytes) - bytes;
            COMPLETED_WRITES.getAndAdd(this, 1L);
            if (left <= 0) {
                writesDrained();
            }
        });
        if (!batched && bytes > 0 && !f.isDone()) {
            watchUnlessWatched();
        }
        return f;
    }

    /** On the event loop, leaves this exchange's flush to the loop's {@link FlushBatch}; false elsewhere. */
    private boolean flushAfterTurn() {
        if (!ctx.executor().inEventLoop()) {
            return false;
        }
        if (!flushPending) {
            flushPending = FlushBatch.flushAfterTurn(this, ctx.executor());
        }
        return flushPending;
    }

    /** Writes a message {@link #write} left to the connection's outbox; called by it, on the event loop. */
    synchronized void writeDeferred(Object message, io.netty.channel.ChannelPromise promise) {
        deferred--;
        ctx.write(message, promise);
    }

    /** The outbox flushed the connection after writing this exchange's messages: bytes left wait under watch. */
    synchronized void flushedByOutbox() {
        if (queued > 0 && ctx.channel().isActive()) {
            watchUnlessWatched();
        }
    }

    /** Flushes what this exchange wrote since the event loop's turn began; called by {@link FlushBatch}. */
    void flushBatched() {
        flushPending = false;
        ctx.flush();
        synchronized (this) {
            if (queued > 0 && ctx.channel().isActive()) {
                watchUnlessWatched();
            }
        }
    }

    private void watchUnlessWatched() {
        if (writeWatch == null) {
            writesAtLastWatch = completedWrites;
            watchWrites();
        }
    }

    /**
     * Once a finished exchange has nothing left to write, its write watch goes: a pending watch would keep the exchange
     * (and what it references: its request, its server channel) alive for the whole write timeout after every
     * answer.
     */
    private void writesDrained() {
        synchronized (this) {
            if (mode == Mode.DONE && queued <= 0) {
                stopWatchingWrites();
            }
        }
    }

    private void watchWrites() {
        writeWatch = ctx.executor().schedule(this::checkProgress, writeTimeoutNanos, TimeUnit.NANOSECONDS);
        pendingWatches.incrementAndGet();
    }

    private void stopWatchingWrites() {
        if (writeWatch != null) {
            writeWatch.cancel(false);
            writeWatch = null;
            pendingWatches.decrementAndGet();
        }
    }

    /** Drops the exchange when queued bytes made no progress for the write timeout. */
    private void checkProgress() {
        synchronized (this) {
            if (writeWatch != null) {
                writeWatch = null;
                pendingWatches.decrementAndGet();
            }
            if (queued <= 0 || !ctx.channel().isActive()) {
                return;
            }
            long completed = completedWrites;
            if (completed == writesAtLastWatch) {
                drop("no write progress in " + TimeUnit.NANOSECONDS.toMillis(writeTimeoutNanos) + " ms");
                return;
            }
            writesAtLastWatch = completed;
            watchWrites();
        }
    }

    /** Gives up on a client that does not read: closes its stream (HTTP/2) or connection (HTTP/1.1). */
    private void drop(String why) {
        SLOW.log("Dropped a response to {0}: {1}", ctx.channel().remoteAddress(), why);
        ctx.channel().close();
        clientGone();
    }

    private void end() {
        mode = Mode.DONE;
        cancelKeepAlive();
        var future = write(LastHttpContent.EMPTY_LAST_CONTENT, 0, true);
        if (!keepAlive) {
            future.addListener(LingeringClose.INSTANCE);
        }
        done();
    }

    /**
     * Writes the whole response and ends the exchange. From another thread (a handler's virtual thread) this is one
     * task on the event loop for the write, its completion and the done callbacks: a write from outside the loop is
     * a task of its own, its flush usually completes in the loop, so no write watch is armed for it.
     */
    private void finish(DefaultFullHttpResponse response) {
        mode = Mode.DONE;
        if (!keepAlive) {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        }
        if (ctx.executor().inEventLoop() && deferred == 0) {
            writeResponse(response);
            done();
            return;
        }
        try {
            ctx.executor().execute(() -> {
                synchronized (this) {
                    writeResponse(response);
                    done();
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException shutDown) {
            response.release();
            done();
        }
    }

    private void writeResponse(DefaultFullHttpResponse response) {
        var future = write(response, response.content().readableBytes(), true);
        if (!keepAlive) {
            future.addListener(LingeringClose.INSTANCE);
        }
    }

    private void cancelKeepAlive() {
        if (keptAlive) {
            keptAlive = false;
            ConnectionOutbox.of(ctx.channel()).stopKeepingAlive(this);
        }
    }

    /** Stops watching write progress once the connection is gone. */
    synchronized void release() {
        stopWatchingWrites();
    }
}
