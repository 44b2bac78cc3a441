package dev.tern.client.http;

import java.nio.channels.ClosedChannelException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http2.AbstractHttp2ConnectionHandlerBuilder;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2ConnectionDecoder;
import io.netty.handler.codec.http2.Http2ConnectionEncoder;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2EventAdapter;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.util.AsciiString;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.collection.IntObjectMap;

/**
 * An HTTP/2 connection (h2c with prior knowledge, or h2 after ALPN): each exchange is a stream, up to the smaller of
 * the configured limit and the server's SETTINGS_MAX_CONCURRENT_STREAMS. Ready once the server's first SETTINGS
 * frame arrives.
 */
final class Http2Connection extends ClientConnection {
    private static final int WINDOW = 1 << 20;
    private static final AsciiString CONTENT_LENGTH = AsciiString.cached("content-length");

    private final Target target;
    private final String protocol;
    private final int maxStreams;
    private final IntObjectMap<Exchange> streams = new IntObjectHashMap<>();
    private final Handler handler;
    private volatile int capacity;
    private boolean draining;
    private ChannelHandlerContext ctx;

    /**
     * Installs HTTP/2 on {@code channel}; {@code ready} gets the connection when the server's settings arrive (or
     * the failure when the connection ends before).
     */
    static void install(Channel channel, Pool pool, ConnectionInfo info, Target target, int maxStreams,
            Consumer<Http2Connection> ready, Consumer<Throwable> failed) {
        new Http2Connection(channel, pool, info, target, maxStreams, ready, failed);
    }

    private Http2Connection(Channel channel, Pool pool, ConnectionInfo info, Target target, int maxStreams,
            Consumer<Http2Connection> ready, Consumer<Throwable> failed) {
        super(channel, pool, info);
        this.target = target;
        this.protocol = info.protocol();
        this.maxStreams = maxStreams;
        this.capacity = maxStreams;
        this.handler = new Builder(new Frames(ready, failed)).build();
        channel.pipeline().addLast(handler);
    }

    @Override
    int capacity() {
        return capacity;
    }

    @Override
    void start(Exchange exchange) {
        HttpCall call = exchange.call;
        byte[] body = call.body();
        int id = handler.connection().local().incrementAndGetNextStreamId();
        if (id <= 0) {
            // stream ids used up: this connection takes nothing more and closes once its streams are done
            draining = true;
            pool.retire(this);
            pool.release(this);
            pool.submit(exchange);
            closeIfDrained();
            return;
        }
        Http2Headers headers = new DefaultHttp2Headers(false)
                .method(call.method())
                .scheme(target.scheme())
                .authority(target.authority())
                .path(target.path(call.path()));
        List<CharSequence> extra = call.headerList();
        for (int i = 0; i < extra.size(); i += 2) {
            headers.add(lowerCase(extra.get(i)), extra.get(i + 1));
        }
        if (body.length > 0) {
            headers.setInt(CONTENT_LENGTH, body.length);
        }
        streams.put(id, exchange);
        exchange.onAbort = () -> channel.eventLoop().execute(() -> {
            if (streams.remove(id) != null) {
                handler.resetStream(ctx, id, Http2Error.CANCEL.code(), ctx.newPromise());
                flush();
                pool.release(this);
            }
        });
        exchange.sent(protocol);
        handler.encoder().writeHeaders(ctx, id, headers, 0, body.length == 0, ctx.newPromise())
                .addListener(f -> {
                    if (!f.isSuccess() && streams.remove(id) != null) {
                        exchange.fail(new HttpClientException("cannot open an HTTP/2 stream: " + f.cause(), f.cause()));
                        pool.release(this);
                    }
                });
        if (body.length > 0) {
            handler.encoder().writeData(ctx, id, Unpooled.wrappedBuffer(body), 0, true, ctx.newPromise());
        }
        flush();
    }

    /** Flushes through the HTTP/2 handler, so DATA queued in its flow controller goes out too. */
    private void flush() {
        try {
            handler.flush(ctx);
        } catch (Exception e) {
            channel.close();
        }
    }

    private void finish(int streamId) {
        Exchange exchange = streams.remove(streamId);
        if (exchange != null) {
            exchange.complete();
            pool.release(this);
            closeIfDrained();
        }
    }

    private void failStream(int streamId, Throwable cause) {
        Exchange exchange = streams.remove(streamId);
        if (exchange != null) {
            exchange.fail(cause);
            pool.release(this);
            closeIfDrained();
        }
    }

    private void closeIfDrained() {
        if (draining && streams.isEmpty()) {
            channel.close();
        }
    }

    private static CharSequence lowerCase(CharSequence name) {
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c >= 'A' && c <= 'Z') {
                return AsciiString.of(name).toLowerCase();
            }
        }
        return name;
    }

    private static HttpHeaders toHttpHeaders(Http2Headers headers) {
        HttpHeaders out = DefaultHttpHeadersFactory.headersFactory().withValidation(false).newHeaders();
        for (Map.Entry<CharSequence, CharSequence> e : headers) {
            CharSequence name = e.getKey();
            if (name.length() > 0 && name.charAt(0) != ':') {
                out.add(name, e.getValue());
            }
        }
        return out;
    }

    private final class Handler extends Http2ConnectionHandler {
        Handler(Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder, Http2Settings settings) {
            super(decoder, encoder, settings);
        }

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
            Http2Connection.this.ctx = ctx;
            super.handlerAdded(ctx);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            List<Exchange> open = new ArrayList<>(streams.values());
            streams.clear();
            for (Exchange e : open) {
                e.fail(new HttpClientException("connection closed before the response ended",
                        new ClosedChannelException()));
            }
            pool.closed(Http2Connection.this);
            super.channelInactive(ctx);
        }
    }

    private final class Builder extends AbstractHttp2ConnectionHandlerBuilder<Handler, Builder> {
        private final Frames frames;

        Builder(Frames frames) {
            this.frames = frames;
            server(false);
            initialSettings(Http2Settings.defaultSettings().initialWindowSize(WINDOW).pushEnabled(false)
                    .maxHeaderListSize(64 * 1024));
            frameListener(frames);
        }

        @Override
        public Handler build() {
            return super.build();
        }

        @Override
        protected Handler build(Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder,
                Http2Settings initialSettings) {
            return new Handler(decoder, encoder, initialSettings);
        }
    }

    private final class Frames extends Http2EventAdapter {
        private Consumer<Http2Connection> ready;
        private Consumer<Throwable> failed;

        Frames(Consumer<Http2Connection> ready, Consumer<Throwable> failed) {
            this.ready = ready;
            this.failed = failed;
            channel.closeFuture().addListener(f -> {
                Consumer<Throwable> notReady = this.failed;
                if (notReady != null) {
                    this.ready = null;
                    this.failed = null;
                    notReady.accept(new HttpClientException("HTTP/2 connection closed before the server's settings"));
                }
            });
        }

        @Override
        public void onSettingsRead(ChannelHandlerContext ctx, Http2Settings settings) throws Http2Exception {
            Long serverMax = settings.maxConcurrentStreams();
            if (serverMax != null) {
                capacity = (int) Math.max(1, Math.min(maxStreams, serverMax));
            }
            Consumer<Http2Connection> first = ready;
            if (first != null) {
                ready = null;
                failed = null;
                handler.connection().local().flowController()
                        .incrementWindowSize(handler.connection().connectionStream(), WINDOW - 65_535);
                flush();
                first.accept(Http2Connection.this);
            } else if (serverMax != null) {
                pool.capacityChanged(Http2Connection.this);
            }
        }

        @Override
        public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int padding,
                boolean endOfStream) {
            Exchange exchange = streams.get(streamId);
            if (exchange == null) {
                return;
            }
            CharSequence status = headers.status();
            if (status != null) {
                int code;
                try {
                    code = Integer.parseInt(status.toString());
                } catch (NumberFormatException e) {
                    failStream(streamId, new HttpClientException("malformed :status " + status));
                    return;
                }
                if (code >= 100 && code < 200) {
                    return;
                }
                exchange.head(code, toHttpHeaders(headers));
            }
            if (endOfStream) {
                finish(streamId);
            }
        }

        @Override
        public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int streamDependency,
                short weight, boolean exclusive, int padding, boolean endOfStream) {
            onHeadersRead(ctx, streamId, headers, padding, endOfStream);
        }

        @Override
        public int onDataRead(ChannelHandlerContext ctx, int streamId, ByteBuf data, int padding, boolean endOfStream) {
            int processed = data.readableBytes() + padding;
            Exchange exchange = streams.get(streamId);
            if (exchange == null) {
                return processed;
            }
            if (!exchange.content(data)) {
                if (streams.remove(streamId) != null) {
                    handler.resetStream(ctx, streamId, Http2Error.CANCEL.code(), ctx.newPromise());
                    pool.release(Http2Connection.this);
                }
                return processed;
            }
            if (endOfStream) {
                finish(streamId);
            }
            return processed;
        }

        @Override
        public void onRstStreamRead(ChannelHandlerContext ctx, int streamId, long errorCode) {
            failStream(streamId, new HttpClientException("the server reset the stream (HTTP/2 error " + errorCode + ")"));
        }

        @Override
        public void onGoAwayRead(ChannelHandlerContext ctx, int lastStreamId, long errorCode, ByteBuf debugData) {
            pool.retire(Http2Connection.this);
            draining = true;
            List<Integer> unprocessed = new ArrayList<>();
            for (int id : streams.keySet()) {
                if (id > lastStreamId) {
                    unprocessed.add(id);
                }
            }
            for (int id : unprocessed) {
                failStream(id, new HttpClientException("the server went away before processing the request"));
            }
            closeIfDrained();
        }
    }
}
