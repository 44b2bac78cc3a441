package dev.tern.transport.http;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.tern.protocol.Json;

import io.netty.handler.codec.http2.Http2Headers;

import org.junit.jupiter.api.Test;

import tools.jackson.databind.JsonNode;

import static dev.tern.transport.http.Mcp.args;
import static dev.tern.transport.http.Mcp.meta;
import static dev.tern.transport.http.Mcp.request;
import static dev.tern.transport.http.Mcp.toolCall;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * MCP over WebSocket on HTTP/2 streams (RFC 8441 extended CONNECT), frame by frame over h2c: the setting that allows
 * it, WebSockets next to POSTs on one connection, each bad CONNECT refused with its status on its own stream only,
 * and the close codes of the HTTP/1.1 path on a stream.
 */
class WebSocketOverHttp2Test {

    @Test
    void advertisesExtendedConnectOnlyWhileTheWebSocketEndpointIsServed() throws Exception {
        try (Served served = new Served(); RawH2 h2 = RawH2.connect(served.port())) {
            assertThat(h2.serverSettings.setting(RawH2.SETTINGS_ENABLE_CONNECT_PROTOCOL)).isEqualTo(1);
        }
        try (Served off = new Served(b -> b.webSocket(w -> w.off())); RawH2 h2 = RawH2.connect(off.port())) {
            assertThat(h2.serverSettings.setting(RawH2.SETTINGS_ENABLE_CONNECT_PROTOCOL)).isIn(-1L, 0L);
            int stream = h2.nextStreamId();
            h2.frame(RawH2.HEADERS, RawH2.END_HEADERS, stream, RawH2.hpack(connect(off.port(), "/mcp/ws")));
            assertThat(h2.response(stream).status()).isEqualTo(404);
        }
    }

    @Test
    void servesSeveralWebSocketsAndPostsSideBySideOnOneConnection() throws Exception {
        try (Served served = new Served(); RawH2 h2 = RawH2.connect(served.port())) {
            int first = open(h2, served.port());
            RawH2.Response posted = h2.response(post(h2, "1"));
            assertThat(posted.status()).as("%s", posted).isEqualTo(200);
            assertThat(posted.body()).contains("user1");
            int second = open(h2, served.port());
            assertThat(served.transport.webSocketStreams()).isEqualTo(2);
            assertThat(served.transport.webSocketConnections()).isEqualTo(2);

            assertThat(call(h2, second, "b", "2").path("result").path("content").get(0).path("text").asString())
                    .contains("\"user2\"");
            assertThat(call(h2, first, "a", "3").path("result").path("content").get(0).path("text").asString())
                    .contains("\"user3\"");
            assertThat(h2.response(post(h2, "4")).body()).contains("user4");
            assertThat(call(h2, first, "c", "5").path("id").asString()).isEqualTo("c");
        }
    }

    @Test
    void refusesBadConnectsWithTheirStatusOnTheirOwnStreamOnly() throws Exception {
        try (Served served = new Served(); RawH2 h2 = RawH2.connect(served.port())) {
            int port = served.port();
            int ws = open(h2, port);

            assertThat(refusal(h2, connect(port, "/mcp/elsewhere")).status()).isEqualTo(404);
            assertThat(refusal(h2, connect(port, "/mcp")).status()).isEqualTo(404);
            Map<String, String> otherProtocol = connect(port, "/mcp/ws");
            otherProtocol.put(":protocol", "webtransport");
            assertThat(refusal(h2, otherProtocol).status()).isEqualTo(400);
            Map<String, String> noProtocol = connect(port, "/mcp/ws");
            noProtocol.remove(":protocol");
            assertThat(refusal(h2, noProtocol).status()).isEqualTo(400);
            Map<String, String> otherVersion = connect(port, "/mcp/ws");
            otherVersion.put("sec-websocket-version", "8");
            RawH2.Response version = refusal(h2, otherVersion);
            assertThat(version.status()).isEqualTo(400);
            assertThat(version.headers().get("sec-websocket-version")).hasToString("13");
            Map<String, String> noVersion = connect(port, "/mcp/ws");
            noVersion.remove("sec-websocket-version");
            assertThat(refusal(h2, noVersion).status()).isEqualTo(400);
            Map<String, String> otherSubprotocol = connect(port, "/mcp/ws");
            otherSubprotocol.put("sec-websocket-protocol", "chat, superchat");
            assertThat(refusal(h2, otherSubprotocol).status()).isEqualTo(400);
            Map<String, String> foreignOrigin = connect(port, "/mcp/ws");
            foreignOrigin.put("origin", "https://evil.example");
            assertThat(refusal(h2, foreignOrigin).status()).isEqualTo(403);
            Map<String, String> foreignHost = connect(port, "/mcp/ws");
            foreignHost.put(":authority", "evil.example");
            assertThat(refusal(h2, foreignHost).status()).isEqualTo(403);
            int ended = h2.nextStreamId();
            h2.frame(RawH2.HEADERS, RawH2.END_HEADERS | RawH2.END_STREAM, ended, RawH2.hpack(connect(port, "/mcp/ws")));
            assertThat(h2.response(ended).status()).isEqualTo(400);
            int get = h2.request("GET", "127.0.0.1:" + port, "/mcp/ws", Map.of(), new byte[0]);
            RawH2.Response plainGet = h2.response(get);
            assertThat(plainGet.status()).isEqualTo(405);
            assertThat(plainGet.headers().get("allow")).hasToString("CONNECT");

            assertThat(served.transport.webSocketStreams()).isEqualTo(1);
            assertThat(call(h2, ws, "still", "6").path("result").path("content").get(0).path("text").asString())
                    .contains("\"user6\"");
            assertThat(h2.response(post(h2, "7")).body()).contains("user7");
        }
    }

    @Test
    void closesAnUnmaskedFrameWith1002AndEndsThatStreamOnly() throws Exception {
        try (Served served = new Served(); RawH2 h2 = RawH2.connect(served.port())) {
            int bad = open(h2, served.port());
            int good = open(h2, served.port());
            byte[] unmasked = RawWebSocket.encode(RawWebSocket.TEXT, true, false, "{}".getBytes(StandardCharsets.UTF_8));
            h2.frame(RawH2.DATA, 0, bad, unmasked);
            RawH2.Frame close = h2.awaitData(bad);
            assertThat(opcode(close.payload())).isEqualTo(RawWebSocket.CLOSE);
            assertThat(closeCode(close.payload())).isEqualTo(1002);
            RawH2.Frame end = h2.awaitData(bad);
            assertThat(end.flags() & RawH2.END_STREAM).isEqualTo(RawH2.END_STREAM);

            assertThat(call(h2, good, "ok", "8").path("result").path("content").get(0).path("text").asString())
                    .contains("\"user8\"");
            awaitStreams(served, 1);
        }
    }

    @Test
    void answersTheClientsCloseAndEndsTheStreamWithEndStream() throws Exception {
        try (Served served = new Served(); RawH2 h2 = RawH2.connect(served.port())) {
            int ws = open(h2, served.port());
            h2.frame(RawH2.DATA, 0, ws, RawWebSocket.encode(RawWebSocket.CLOSE, true, true, new byte[] {0x03, (byte) 0xE8}));
            RawH2.Frame close = h2.awaitData(ws);
            assertThat(opcode(close.payload())).isEqualTo(RawWebSocket.CLOSE);
            assertThat(closeCode(close.payload())).isEqualTo(1000);
            RawH2.Frame end = h2.awaitData(ws);
            assertThat(end.flags() & RawH2.END_STREAM).isEqualTo(RawH2.END_STREAM);
            h2.frame(RawH2.DATA, RawH2.END_STREAM, ws, new byte[0]);
            awaitStreams(served, 0);
        }
    }

    @Test
    void endsTheWebSocketWhenTheClientEndsOrResetsItsStream() throws Exception {
        try (Served served = new Served(); RawH2 h2 = RawH2.connect(served.port())) {
            int ended = open(h2, served.port());
            int reset = open(h2, served.port());
            int kept = open(h2, served.port());
            assertThat(served.transport.webSocketStreams()).isEqualTo(3);
            h2.frame(RawH2.DATA, RawH2.END_STREAM, ended, new byte[0]);
            h2.frame(RawH2.RST_STREAM, 0, reset, RawH2.int32(RawH2.CANCEL));
            awaitStreams(served, 1);
            assertThat(call(h2, kept, "k", "9").path("result").path("content").get(0).path("text").asString())
                    .contains("\"user9\"");
        }
    }

    @Test
    void keepsAnH2cConnectionWithPriorKnowledgePastTheRequestHeaderTimeout() throws Exception {
        // The timeout guards HTTP/1.1 request heads; the h2c preface ends its watch over the connection for good.
        try (Served served = new Served(b -> b.connections(c -> c.requestHeaderTimeout(Duration.ofMillis(200))));
                RawH2 h2 = RawH2.connect(served.port())) {
            int ws = open(h2, served.port());
            Thread.sleep(600);
            assertThat(call(h2, ws, "late", "10").path("result").path("content").get(0).path("text").asString())
                    .contains("\"user10\"");
            assertThat(h2.response(post(h2, "11")).body()).contains("user11");
        }
    }

    /** The header fields of an extended CONNECT for a WebSocket with subprotocol {@code mcp}. */
    static Map<String, String> connect(int port, String path) {
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put(":method", "CONNECT");
        fields.put(":protocol", "websocket");
        fields.put(":scheme", "http");
        fields.put(":authority", "127.0.0.1:" + port);
        fields.put(":path", path);
        fields.put("sec-websocket-version", "13");
        fields.put("sec-websocket-protocol", "mcp");
        return fields;
    }

    /** Opens a WebSocket on a new stream; returns the stream once the server accepted it. */
    private static int open(RawH2 h2, int port) throws Exception {
        int stream = h2.nextStreamId();
        h2.frame(RawH2.HEADERS, RawH2.END_HEADERS, stream, RawH2.hpack(connect(port, "/mcp/ws")));
        Http2Headers accepted = h2.awaitHeaders(stream);
        assertThat(accepted.status()).hasToString("200");
        assertThat(accepted.get("sec-websocket-protocol")).hasToString("mcp");
        return stream;
    }

    private static RawH2.Response refusal(RawH2 h2, Map<String, String> fields) throws Exception {
        int stream = h2.nextStreamId();
        h2.frame(RawH2.HEADERS, RawH2.END_HEADERS, stream, RawH2.hpack(fields));
        RawH2.Response response = h2.response(stream);
        if (response.status() >= 400) {
            assertThat(Json.mapper().readTree(response.body()).path("error").path("code").asInt()).isEqualTo(-32600);
        }
        return response;
    }

    /** A 2026-07-28 get_user call POSTed on a new stream; returns the stream. */
    private static int post(RawH2 h2, String user) throws Exception {
        Map<String, String> headers = new LinkedHashMap<>();
        // HTTP/2 header names are lower case.
        Mcp.modernHeaders("tools/call", "get_user").forEach((name, value) -> headers.put(name.toLowerCase(), value));
        return h2.post(request(user, "tools/call", meta(toolCall("get_user", args("id", user)))), headers, true);
    }

    /** A 2026-07-28 get_user call as one masked text frame on {@code stream}; returns the answer. */
    private static JsonNode call(RawH2 h2, int stream, String id, String user) throws Exception {
        byte[] text = request(id, "tools/call", meta(toolCall("get_user", args("id", user))))
                .getBytes(StandardCharsets.UTF_8);
        h2.frame(RawH2.DATA, 0, stream, RawWebSocket.encode(RawWebSocket.TEXT, true, true, text));
        ByteArrayOutputStream message = new ByteArrayOutputStream();
        while (true) {
            message.write(h2.awaitData(stream).payload());
            byte[] bytes = message.toByteArray();
            if (bytes.length >= 2 && bytes.length >= headLength(bytes) + payloadLength(bytes)) {
                assertThat(opcode(bytes)).isEqualTo(RawWebSocket.TEXT);
                return Json.mapper().readTree(new String(bytes, headLength(bytes), (int) payloadLength(bytes),
                        StandardCharsets.UTF_8));
            }
        }
    }

    private static int opcode(byte[] frame) {
        return frame[0] & 0x0F;
    }

    private static int headLength(byte[] frame) {
        int length = frame[1] & 0x7F;
        return length == 126 ? 4 : length == 127 ? 10 : 2;
    }

    private static long payloadLength(byte[] frame) {
        int length = frame[1] & 0x7F;
        if (length == 126) {
            return (frame[2] & 0xFF) << 8 | frame[3] & 0xFF;
        }
        if (length == 127) {
            return ByteBuffer.wrap(frame, 2, 8).getLong();
        }
        return length;
    }

    private static int closeCode(byte[] frame) {
        int at = headLength(frame);
        return (frame[at] & 0xFF) << 8 | frame[at + 1] & 0xFF;
    }

    private static void awaitStreams(Served served, int count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (served.transport.webSocketStreams() != count && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(served.transport.webSocketStreams()).isEqualTo(count);
        assertThat(served.transport.webSocketConnections()).isEqualTo(count);
    }
}
