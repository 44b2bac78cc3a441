package dev.tern.client.http;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import dev.tern.client.TestServers;
import dev.tern.protocol.Json;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamChannelBootstrap;
import io.netty.handler.codec.http2.Http2StreamFrameToHttpObjectCodec;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * WebSockets on HTTP/2 streams (RFC 8441) against Tern, h2c and TLS h2: several of them and MCP POSTs on one
 * connection, refused extended CONNECTs with their status, and a close code reaching the client.
 */
class WebSocketOverHttp2ClientTest {
    private static TestServers.Running clear;
    private static TestServers.Running tls;

    @BeforeAll
    static void start() throws InterruptedException {
        clear = TestServers.http(b -> b);
        tls = TestServers.http(b -> b.tls(t -> t.selfSigned()));
    }

    @AfterAll
    static void stop() {
        if (clear != null) {
            clear.close();
        }
        if (tls != null) {
            tls.close();
        }
    }

    private static WebSocketClient.Builder builder(boolean secure, String path) {
        TestServers.Running server = secure ? tls : clear;
        WebSocketClient.Builder b = WebSocketClient.builder(URI.create((secure ? "wss" : "ws") + "://127.0.0.1:"
                + server.port() + path)).http2(true);
        return secure ? b.tls(ClientTls.insecure()) : b;
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void carriesSeveralWebSocketsAndPostsOnOneConnection(boolean secure) throws Exception {
        List<BlockingQueue<String>> inboxes = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            inboxes.add(new LinkedBlockingQueue<>());
        }
        try (WebSocketClient first = builder(secure, "/mcp/ws").connect(m -> inboxes.get(0).add(text(m)), c -> { })
                .get(10, TimeUnit.SECONDS)) {
            assertThat(first.http2()).isTrue();
            WebSocketClient second = first.openStream(m -> inboxes.get(1).add(text(m)), c -> { })
                    .get(10, TimeUnit.SECONDS);
            WebSocketClient third = first.openStream(m -> inboxes.get(2).add(text(m)), c -> { })
                    .get(10, TimeUnit.SECONDS);
            assertThat(second.connection()).isSameAs(first.connection());
            assertThat(third.connection()).isSameAs(first.connection());

            List<WebSocketClient> sockets = List.of(first, second, third);
            for (int round = 0; round < 2; round++) {
                for (int i = 0; i < sockets.size(); i++) {
                    String user = Integer.toString(10 * round + i + 1);
                    sockets.get(i).send(getUser(user, "ws" + i).getBytes(StandardCharsets.UTF_8));
                    assertThat(post(first, user, secure).path("result").path("structuredContent").path("id")
                            .asString()).isEqualTo(user);
                }
                for (int i = 0; i < sockets.size(); i++) {
                    String reply = inboxes.get(i).poll(10, TimeUnit.SECONDS);
                    assertThat(reply).as("the answer on WebSocket " + i).isNotNull();
                    JsonNode answer = Json.mapper().readTree(reply);
                    assertThat(answer.path("id").asString()).isEqualTo("ws" + i);
                    assertThat(answer.path("result").path("structuredContent").path("id").asString())
                            .isEqualTo(Integer.toString(10 * round + i + 1));
                }
            }
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aRefusedExtendedConnectFailsWithItsStatus(boolean secure) {
        assertThatThrownBy(() -> builder(secure, "/mcp/elsewhere").connect(m -> { }, c -> { }).get(10, TimeUnit.SECONDS))
                .hasCauseInstanceOf(HttpClientException.class).hasMessageContaining("status 404");
        assertThatThrownBy(() -> builder(secure, "/mcp/ws").subprotocol("chat").connect(m -> { }, c -> { })
                .get(10, TimeUnit.SECONDS))
                .hasCauseInstanceOf(HttpClientException.class).hasMessageContaining("status 400");
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aServerWithoutExtendedConnectGetsTheHttp11UpgradeInstead(boolean secure) throws Exception {
        // Without its WebSocket endpoint Tern does not allow extended CONNECT: the client's second try, the
        // HTTP/1.1 upgrade, is what gets the 404.
        try (TestServers.Running off = TestServers.http(b -> secure ? b.webSocket(w -> w.off()).tls(t -> t.selfSigned())
                : b.webSocket(w -> w.off()))) {
            WebSocketClient.Builder b = WebSocketClient.builder(URI.create((secure ? "wss" : "ws") + "://127.0.0.1:"
                    + off.port() + "/mcp/ws")).http2(true);
            if (secure) {
                b.tls(ClientTls.insecure());
            }
            assertThatThrownBy(() -> b.connect(m -> { }, c -> { }).get(10, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(HttpClientException.class).hasMessageContaining("upgrade failed")
                    .hasMessageContaining("404").hasMessageNotContaining("extended CONNECT");
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aCloseCodeFromTheServerReachesTheClientAndEndsTheConnection(boolean secure) throws Exception {
        CompletableFuture<WebSocketClient.Closed> closed = new CompletableFuture<>();
        try (WebSocketClient ws = builder(secure, "/mcp/ws").connect(m -> { }, closed::complete)
                .get(10, TimeUnit.SECONDS)) {
            // The subprotocol mcp carries text frames: a binary one is closed with 1003.
            ws.sendBinary(new byte[] {1, 2, 3});
            WebSocketClient.Closed how = closed.get(10, TimeUnit.SECONDS);
            assertThat(how.status()).isEqualTo(1003);
            assertThat(how.reason()).contains("text frames");
            assertThat(ws.connection().closeFuture().await(5, TimeUnit.SECONDS)).isTrue();
        }
    }

    private static String text(byte[] message) {
        return new String(message, StandardCharsets.UTF_8);
    }

    private static String getUser(String user, String id) {
        return "{\"jsonrpc\":\"2.0\",\"id\":\"" + id + "\",\"method\":\"tools/call\",\"params\":{\"name\":\"get_user\","
                + "\"arguments\":{\"id\":\"" + user + "\"},\"_meta\":{"
                + "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                + "\"io.modelcontextprotocol/clientCapabilities\":{}}}}";
    }

    /** A 2026-07-28 get_user call POSTed on a new stream of the WebSocket's connection. */
    private static JsonNode post(WebSocketClient ws, String user, boolean secure) throws Exception {
        CompletableFuture<FullHttpResponse> answered = new CompletableFuture<>();
        Http2StreamChannel stream = new Http2StreamChannelBootstrap(ws.connection())
                .handler(new ChannelInitializer<Http2StreamChannel>() {
                    @Override
                    protected void initChannel(Http2StreamChannel ch) {
                        ch.pipeline().addLast(new Http2StreamFrameToHttpObjectCodec(false),
                                new HttpObjectAggregator(1 << 20),
                                new SimpleChannelInboundHandler<FullHttpResponse>() {
                                    @Override
                                    protected void channelRead0(ChannelHandlerContext ctx, FullHttpResponse r) {
                                        answered.complete(r.retainedDuplicate());
                                    }
                                });
                    }
                }).open().get(10, TimeUnit.SECONDS);
        byte[] body = getUser(user, "post" + user).getBytes(StandardCharsets.UTF_8);
        FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/mcp",
                Unpooled.wrappedBuffer(body));
        request.headers().set("host", "127.0.0.1").set("content-type", "application/json")
                .set("accept", "application/json, text/event-stream").set("mcp-protocol-version", "2026-07-28")
                .set("mcp-method", "tools/call").set("mcp-name", "get_user")
                .set("x-http2-scheme", secure ? "https" : "http").setInt("content-length", body.length);
        stream.writeAndFlush(request);
        FullHttpResponse response = answered.get(10, TimeUnit.SECONDS);
        try {
            assertThat(response.status().code()).isEqualTo(200);
            return Json.mapper().readTree(response.content().toString(StandardCharsets.UTF_8));
        } finally {
            response.release();
        }
    }
}
