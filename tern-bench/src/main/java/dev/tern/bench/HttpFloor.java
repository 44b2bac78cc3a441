package dev.tern.bench;

import java.net.InetSocketAddress;
import java.util.Optional;

import dev.tern.examples.UserDirectory;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;

import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The floor under the MCP-against-REST figures: a hand-written minimal stateless MCP endpoint and its REST twin on
 * plain Netty, with none of a server's duties (no header checks, limits, sessions, validation, deadlines or
 * observability; every request answered on the event loop). {@code GET /users/{id}} answers the user record of the
 * user-directory example; {@code POST /mcp} parses the JSON-RPC request into a tree, answers {@code tools/call
 * get_user} with that record as text and structured content, and anything else with a JSON-RPC error. The ratio of
 * its two costs is what the protocol itself adds on this stack (bigger messages, a JSON body to parse, a bigger reply
 * to write): no server's MCP/REST ratio can be expected below it.
 *
 * <pre>java -cp tern.jar dev.tern.bench.HttpFloor [--host 127.0.0.1] [--port 8080]</pre>
 */
public final class HttpFloor implements AutoCloseable {
    private static final int MAX_BODY = 1 << 20;

    private final MultiThreadIoEventLoopGroup boss;
    private final MultiThreadIoEventLoopGroup workers;
    private final Channel server;

    private HttpFloor(String host, int port) throws InterruptedException {
        boolean epoll = Epoll.isAvailable();
        IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        Class<? extends ServerChannel> channelType = epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
        Endpoints endpoints = new Endpoints();
        boss = new MultiThreadIoEventLoopGroup(1, io);
        workers = new MultiThreadIoEventLoopGroup(0, io);
        server = new ServerBootstrap()
                .group(boss, workers)
                .channel(channelType)
                .option(ChannelOption.SO_BACKLOG, 1024)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        configure(ch.pipeline(), endpoints);
                    }
                })
                .bind(new InetSocketAddress(host, port)).sync().channel();
    }

    /** Sets up a connection's pipeline as the floor's server does, for benchmarks that run it without a network. */
    public static void configure(ChannelPipeline pipeline) {
        configure(pipeline, new Endpoints());
    }

    private static void configure(ChannelPipeline pipeline, Endpoints endpoints) {
        pipeline.addLast(new HttpServerCodec(), new HttpObjectAggregator(MAX_BODY), endpoints);
    }

    /** Starts serving on {@code host:port} (port 0: any free port). */
    public static HttpFloor start(String host, int port) throws InterruptedException {
        return new HttpFloor(host, port);
    }

    public int port() {
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    @Override
    public void close() {
        server.close().syncUninterruptibly();
        boss.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
        workers.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
    }

    public static void main(String[] args) throws InterruptedException {
        // Netty as tern serve runs it (its Main): no leak sampling.
        System.getProperties().putIfAbsent("io.netty.leakDetection.level", "disabled");
        String host = "127.0.0.1";
        int port = 8080;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--host") && i + 1 < args.length) {
                host = args[++i];
            } else if (args[i].equals("--port") && i + 1 < args.length) {
                port = Integer.parseInt(args[++i]);
            } else {
                System.err.println("usage: HttpFloor [--host HOST] [--port PORT]");
                System.exit(2);
            }
        }
        HttpFloor floor = start(host, port);
        Runtime.getRuntime().addShutdownHook(new Thread(floor::close, "http-floor-shutdown"));
        System.err.println("HttpFloor: serving http://" + host + ":" + floor.port() + "/mcp and /users/{id}");
        floor.server.closeFuture().sync();
    }

    /** The two endpoints, shared by every connection. */
    @ChannelHandler.Sharable
    private static final class Endpoints extends SimpleChannelInboundHandler<FullHttpRequest> {
        private final JsonMapper mapper = JsonMapper.builder().build();
        private final UserDirectory directory = UserDirectory.generate(1_000);

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
            String uri = request.uri();
            FullHttpResponse response;
            if (request.method() == HttpMethod.GET && uri.startsWith("/users/")) {
                response = rest(ctx, uri.substring("/users/".length()));
            } else if (request.method() == HttpMethod.POST && uri.equals("/mcp")) {
                response = mcp(ctx, request.content());
            } else {
                response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.NOT_FOUND,
                        ctx.alloc().buffer(0));
            }
            boolean keepAlive = HttpUtil.isKeepAlive(request);
            HttpUtil.setContentLength(response, response.content().readableBytes());
            if (!keepAlive) {
                response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            }
            var written = ctx.writeAndFlush(response);
            if (!keepAlive) {
                written.addListener(ChannelFutureListener.CLOSE);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }

        private FullHttpResponse rest(ChannelHandlerContext ctx, String id) {
            Optional<UserDirectory.User> user = directory.find(id);
            if (user.isEmpty()) {
                return new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.NOT_FOUND, ctx.alloc().buffer(0));
            }
            ByteBuf body = ctx.alloc().buffer(512);
            mapper.writeValue((java.io.OutputStream) new ByteBufOutputStream(body), user.get());
            return json(body);
        }

        private FullHttpResponse mcp(ChannelHandlerContext ctx, ByteBuf content) {
            JsonNode request;
            try {
                request = mapper.readTree((java.io.InputStream) new io.netty.buffer.ByteBufInputStream(content));
            } catch (RuntimeException e) {
                return error(ctx, null, -32700, "Parse error");
            }
            JsonNode id = request.get("id");
            JsonNode params = request.path("params");
            if (!"tools/call".equals(request.path("method").asString(""))
                    || !"get_user".equals(params.path("name").asString(""))) {
                return error(ctx, id, -32601, "Method not found");
            }
            Optional<UserDirectory.User> user = directory.find(params.path("arguments").path("id").asString(""));
            if (user.isEmpty()) {
                return error(ctx, id, -32602, "Unknown user");
            }
            String record = mapper.writeValueAsString(user.get());
            ByteBuf body = ctx.alloc().buffer(1024);
            try (JsonGenerator g = mapper.createGenerator((java.io.OutputStream) new ByteBufOutputStream(body))) {
                g.writeStartObject();
                g.writeStringProperty("jsonrpc", "2.0");
                g.writeName("id");
                g.writeTree(id);
                g.writeName("result");
                g.writeStartObject();
                g.writeName("content");
                g.writeStartArray();
                g.writeStartObject();
                g.writeStringProperty("type", "text");
                g.writeStringProperty("text", record);
                g.writeEndObject();
                g.writeEndArray();
                g.writeName("structuredContent");
                g.writeRawValue(record);
                g.writeStringProperty("resultType", "complete");
                g.writeEndObject();
                g.writeEndObject();
            }
            return json(body);
        }

        private FullHttpResponse error(ChannelHandlerContext ctx, JsonNode id, int code, String message) {
            ByteBuf body = ctx.alloc().buffer(128);
            try (JsonGenerator g = mapper.createGenerator((java.io.OutputStream) new ByteBufOutputStream(body))) {
                g.writeStartObject();
                g.writeStringProperty("jsonrpc", "2.0");
                g.writeName("id");
                if (id == null) {
                    g.writeNull();
                } else {
                    g.writeTree(id);
                }
                g.writeName("error");
                g.writeStartObject();
                g.writeNumberProperty("code", code);
                g.writeStringProperty("message", message);
                g.writeEndObject();
                g.writeEndObject();
            }
            return json(body);
        }

        private static FullHttpResponse json(ByteBuf body) {
            FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, body);
            response.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
            return response;
        }
    }
}
