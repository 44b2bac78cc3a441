package dev.tern.client.http;

import java.nio.channels.ClosedChannelException;
import java.util.List;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;

/** An HTTP/1.1 keep-alive connection: one exchange at a time, no pipelining. */
final class Http1Connection extends ClientConnection {
    private final Target target;
    private Exchange current;
    private boolean closeAfter;
    private boolean informational;

    Http1Connection(Channel channel, Pool pool, ConnectionInfo info, Target target) {
        super(channel, pool, info);
        this.target = target;
        channel.pipeline().addLast(new HttpClientCodec(4096, 16 * 1024, 16 * 1024), new Reader());
    }

    @Override
    int capacity() {
        return 1;
    }

    @Override
    void start(Exchange exchange) {
        HttpCall call = exchange.call;
        byte[] body = call.body();
        FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.valueOf(call.method()),
                target.path(call.path()), body.length == 0 ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(body));
        request.headers().set(HttpHeaderNames.HOST, target.authority());
        if (body.length > 0 || !"GET".equals(call.method())) {
            HttpUtil.setContentLength(request, body.length);
        }
        List<CharSequence> headers = call.headerList();
        for (int i = 0; i < headers.size(); i += 2) {
            request.headers().add(headers.get(i), headers.get(i + 1));
        }
        current = exchange;
        exchange.onAbort = channel::close;
        exchange.sent("http/1.1");
        channel.writeAndFlush(request).addListener(f -> {
            if (!f.isSuccess()) {
                exchange.fail(new HttpClientException("cannot send the request: " + f.cause(), f.cause()));
            }
        });
    }

    private final class Reader extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            try {
                Exchange exchange = current;
                if (exchange == null) {
                    return;
                }
                if (msg instanceof HttpResponse response) {
                    int status = response.status().code();
                    informational = status >= 100 && status < 200;
                    if (!informational) {
                        closeAfter = !HttpUtil.isKeepAlive(response);
                        exchange.head(status, response.headers());
                    }
                }
                if (msg instanceof HttpContent content) {
                    if (informational) {
                        return;
                    }
                    if (!exchange.content(content.content())) {
                        channel.close();
                        return;
                    }
                    if (content instanceof LastHttpContent) {
                        current = null;
                        // back in the pool before the caller hears of the reply, so its next request can reuse it
                        if (closeAfter) {
                            channel.close();
                        } else {
                            pool.release(Http1Connection.this);
                        }
                        exchange.complete();
                    }
                }
            } finally {
                ReferenceCountUtil.release(msg);
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            Exchange exchange = current;
            current = null;
            if (exchange != null) {
                exchange.fail(new HttpClientException("connection closed before the response ended",
                        new ClosedChannelException()));
            }
            pool.closed(Http1Connection.this);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            Exchange exchange = current;
            if (exchange != null) {
                exchange.fail(new HttpClientException("HTTP/1.1 connection failed: " + cause.getMessage(), cause));
            }
            ctx.close();
        }
    }
}
