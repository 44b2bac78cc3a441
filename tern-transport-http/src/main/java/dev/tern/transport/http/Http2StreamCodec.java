package dev.tern.transport.http;

import java.util.List;
import java.util.Map;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2StreamFrame;
import io.netty.handler.codec.http2.Http2StreamFrameToHttpObjectCodec;

import org.jspecify.annotations.Nullable;

/**
 * Netty's translation of an HTTP/2 stream's frames into HTTP/1.1 messages and back, which also passes on an RFC 8441
 * extended CONNECT ({@code :method CONNECT} with {@code :protocol} or a {@code :path}) as an {@link ExtendedConnect}:
 * Netty's own translation would make the authority its URI and drop the path and the protocol.
 */
final class Http2StreamCodec extends Http2StreamFrameToHttpObjectCodec {
    Http2StreamCodec() {
        super(true);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, Http2StreamFrame frame, List<Object> out) throws Exception {
        if (frame instanceof Http2HeadersFrame headers && ExtendedConnect.is(headers.headers())) {
            out.add(ExtendedConnect.of(headers.headers(), headers.isEndStream()));
            return;
        }
        super.decode(ctx, frame, out);
    }

    /**
     * The head of an extended CONNECT: method CONNECT, the {@code :path} as URI, {@code :authority} as Host, the
     * other headers as sent, and the {@code :protocol} asked for ({@code null} when there is none).
     */
    static final class ExtendedConnect extends DefaultHttpRequest {
        private final @Nullable String protocol;
        private final boolean ended;

        private ExtendedConnect(String uri, @Nullable String protocol, boolean ended) {
            super(HttpVersion.HTTP_1_1, HttpMethod.CONNECT, uri);
            this.protocol = protocol;
            this.ended = ended;
        }

        @Nullable String protocol() {
            return protocol;
        }

        /** Whether the client ended its side of the stream with the CONNECT itself: no tunnel can follow. */
        boolean ended() {
            return ended;
        }

        static boolean is(Http2Headers headers) {
            return HttpMethod.CONNECT.asciiName().contentEquals(headers.method())
                    && (headers.contains(Http2Headers.PseudoHeaderName.PROTOCOL.value()) || headers.path() != null);
        }

        static ExtendedConnect of(Http2Headers headers, boolean ended) {
            CharSequence path = headers.path();
            CharSequence protocol = headers.get(Http2Headers.PseudoHeaderName.PROTOCOL.value());
            ExtendedConnect request = new ExtendedConnect(path == null || path.isEmpty() ? "/" : path.toString(),
                    protocol == null ? null : protocol.toString(), ended);
            for (Map.Entry<CharSequence, CharSequence> h : headers) {
                if (!Http2Headers.PseudoHeaderName.hasPseudoHeaderFormat(h.getKey())) {
                    request.headers().add(h.getKey(), h.getValue());
                }
            }
            CharSequence authority = headers.authority();
            if (authority != null) {
                request.headers().set(HttpHeaderNames.HOST, authority);
            }
            return request;
        }
    }
}
