package dev.tern.transport.http;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import dev.tern.protocol.Json;

import org.junit.jupiter.api.Test;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import static dev.tern.transport.http.Mcp.args;
import static dev.tern.transport.http.Mcp.meta;
import static dev.tern.transport.http.Mcp.request;
import static dev.tern.transport.http.Mcp.toolCall;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * MCP over WebSocket ({@code /mcp/ws}): both eras on one connection, and SECURITY.md row 48d, each bad input with its
 * close code or status while the server goes on serving other clients.
 */
class WebSocketTransportTest {

    @Test
    void servesBothErasAndTheirNotificationsOnOneConnection() throws Exception {
        try (Served served = new Served(); Client ws = new Client(served.transport.webSocketUrl())) {
            assertThat(ws.socket.getSubprotocol()).isEqualTo("mcp");

            JsonNode modern = ws.call(request(1, "tools/call", meta(toolCall("get_user", args("id", "7")))));
            assertThat(modern.path("id").asInt()).isEqualTo(1);
            assertThat(modern.path("result").path("content").get(0).path("text").asString()).contains("\"user7\"");

            ObjectNode init = Json.object();
            init.put("protocolVersion", Mcp.LEGACY);
            init.putObject("capabilities");
            init.putObject("clientInfo").put("name", "ws-test").put("version", "1.0");
            JsonNode initialized = ws.call(request(2, "initialize", init));
            assertThat(initialized.path("result").path("protocolVersion").asString()).isEqualTo(Mcp.LEGACY);
            ws.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");

            ObjectNode chatty = toolCall("chatty", args("tag", "ws"));
            ((ObjectNode) chatty.get("arguments")).put("events", 3).put("size", 8);
            chatty.putObject("_meta").put("progressToken", "p1");
            ws.send(request(3, "tools/call", chatty));
            for (int i = 1; i <= 3; i++) {
                JsonNode progress = ws.next();
                assertThat(progress.path("method").asString()).isEqualTo("notifications/progress");
                assertThat(progress.path("params").path("progressToken").asString()).isEqualTo("p1");
                assertThat(progress.path("params").path("progress").asInt()).isEqualTo(i);
            }
            assertThat(ws.next().path("result").path("content").get(0).path("text").asString()).isEqualTo("sent 3");

            JsonNode legacyCall = ws.call(request(4, "tools/call", toolCall("get_user", args("id", "8"))));
            assertThat(legacyCall.path("result").path("content").get(0).path("text").asString()).contains("\"user8\"");
            JsonNode modernAgain = ws.call(request(5, "tools/call", meta(toolCall("get_user", args("id", "9")))));
            assertThat(modernAgain.path("result").path("content").get(0).path("text").asString()).contains("\"user9\"");
        }
    }

    @Test
    void answersMalformedJsonWithParseErrorAndReadsOn() throws Exception {
        try (Served served = new Served(); Client ws = new Client(served.transport.webSocketUrl())) {
            assertThat(ws.call("{not json").path("error").path("code").asInt()).isEqualTo(-32700);
            assertServes(ws);
        }
    }

    @Test
    void refusesAForeignOriginAndAForeignHostWith403() throws Exception {
        try (Served served = new Served()) {
            try (RawWebSocket raw = new RawWebSocket(served.port(), "/mcp/ws", "Origin: https://evil.example\r\n")) {
                assertThat(raw.status()).isEqualTo(403);
            }
            try (RawWebSocket raw = new RawWebSocket(served.port(), "/mcp/ws",
                    "Host: evil.example\r\nSec-WebSocket-Protocol: mcp\r\n", true)) {
                assertThat(raw.status()).isEqualTo(403);
            }
            try (RawWebSocket raw = new RawWebSocket(served.port(), "/mcp/ws",
                    "Origin: http://127.0.0.1:" + served.port() + "\r\n")) {
                assertThat(raw.status()).isEqualTo(101);
                assertThat(raw.handshake).containsIgnoringCase("sec-websocket-protocol: mcp");
            }
            assertServes(served);
        }
    }

    @Test
    void refusesWhatIsNotAWebSocketUpgradeForMcp() throws Exception {
        try (Served served = new Served()) {
            try (RawWebSocket raw = new RawWebSocket(served.port(), "/mcp/ws", "Host: 127.0.0.1\r\n", false)) {
                assertThat(raw.status()).isEqualTo(426);
                assertThat(raw.handshake).containsIgnoringCase("upgrade: websocket");
            }
            try (RawWebSocket raw = new RawWebSocket(served.port(), "/mcp/ws",
                    "Host: 127.0.0.1\r\nSec-WebSocket-Protocol: chat, superchat\r\n", true)) {
                assertThat(raw.status()).isEqualTo(400);
            }
        }
        try (Served off = new Served(b -> b.webSocket(w -> w.off()))) {
            try (RawWebSocket raw = new RawWebSocket(off.port(), "/mcp/ws", "")) {
                assertThat(raw.status()).isEqualTo(404);
            }
            assertThat(off.transport.webSocketUrl()).isNull();
        }
    }

    @Test
    void countsConnectionsAgainstTheClientsShareOfSessions() throws Exception {
        try (Served served = new Served(b -> b.sessions(s -> s.maxPerClient(2)));
                Client first = new Client(served.transport.webSocketUrl());
                Client second = new Client(served.transport.webSocketUrl())) {
            try (RawWebSocket third = new RawWebSocket(served.port(), "/mcp/ws", "")) {
                assertThat(third.status()).isEqualTo(429);
                assertThat(third.handshake).containsIgnoringCase("retry-after: 1");
            }
            second.socket.sendClose(WebSocket.NORMAL_CLOSURE, "").get(10, TimeUnit.SECONDS);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (served.transport.webSocketConnections() > 1 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertServes(served);
            assertServes(first);
        }
    }

    @Test
    void refusesSettingsThatCannotWork() {
        DirectoryFixture fixture = new DirectoryFixture();
        try {
            assertThatThrownBy(() -> HttpServerTransport.builder(fixture.server)
                    .webSocket(w -> w.pingInterval(Duration.ofSeconds(30)).idleTimeout(Duration.ofSeconds(30))).build())
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("webSocket.idleTimeout");
            assertThatThrownBy(() -> HttpServerTransport.builder(fixture.server).webSocket(w -> w.path("/mcp")).build())
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("webSocket.path: /mcp");
            assertThatThrownBy(() -> HttpServerTransport.builder(fixture.server)
                    .route("GET", "/mcp/ws", request -> RouteResponse.json(200, "{}")).build())
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("WebSocket endpoint's path");
            HttpOptions.WebSocket options = HttpServerTransport.builder(fixture.server)
                    .webSocket(w -> w.maxMessage(1000).maxFrame(5000)).build().options().webSocket().orElseThrow();
            assertThat(options.maxFrameBytes()).as("a frame is never larger than a message").isEqualTo(1000);
            assertThat(HttpServerTransport.builder(fixture.server).build().options().webSocket().orElseThrow()
                    .maxMessageBytes()).isEqualTo(dev.tern.protocol.CodecLimits.DEFAULT.maxMessageBytes());
        } finally {
            fixture.server.close();
        }
    }

    @Test
    void servesAtTheConfiguredPath() throws Exception {
        try (Served served = new Served(b -> b.webSocket(w -> w.path("/ws")));
                Client ws = new Client(served.transport.webSocketUrl())) {
            assertThat(served.transport.webSocketUrl()).endsWith("/ws");
            assertServes(ws);
        }
    }

    @Test
    void closesAnUnmaskedClientFrameWith1002() throws Exception {
        try (Served served = new Served(); RawWebSocket raw = new RawWebSocket(served.port(), "/mcp/ws", "")) {
            raw.frame(RawWebSocket.TEXT, true, false, "{}".getBytes(StandardCharsets.UTF_8));
            assertThat(raw.awaitClose()).isEqualTo(1002);
            assertThat(raw.closedByServer()).isTrue();
            assertServes(served);
        }
    }

    @Test
    void closesInvalidUtf8With1007() throws Exception {
        try (Served served = new Served(); RawWebSocket raw = new RawWebSocket(served.port(), "/mcp/ws", "")) {
            raw.frame(RawWebSocket.TEXT, true, true, new byte[] {'{', '"', (byte) 0xC3, (byte) 0x28, '"', '}'});
            assertThat(raw.awaitClose()).isEqualTo(1007);
            assertThat(raw.closedByServer()).isTrue();
            assertServes(served);
        }
    }

    @Test
    void closesAnOversizedFrameWith1009BeforeReadingIt() throws Exception {
        try (Served served = new Served(b -> b.webSocket(w -> w.maxFrame(1024)));
                RawWebSocket raw = new RawWebSocket(served.port(), "/mcp/ws", "")) {
            raw.frameHead(RawWebSocket.TEXT, 1L << 40);
            assertThat(raw.awaitClose()).isEqualTo(1009);
            assertThat(raw.closedByServer()).isTrue();
            assertServes(served);
        }
    }

    @Test
    void closesAnOversizedMessageOfSmallFragmentsWith1009() throws Exception {
        try (Served served = new Served(b -> b.webSocket(w -> w.maxMessage(4096)));
                RawWebSocket raw = new RawWebSocket(served.port(), "/mcp/ws", "")) {
            byte[] part = "x".repeat(1000).getBytes(StandardCharsets.UTF_8);
            raw.frame(RawWebSocket.TEXT, false, true, part);
            for (int i = 0; i < 5; i++) {
                raw.frame(RawWebSocket.CONTINUATION, false, true, part);
            }
            assertThat(raw.awaitClose()).isEqualTo(1009);
            assertServes(served);
        }
    }

    @Test
    void closesAFragmentFloodWith1008() throws Exception {
        try (Served served = new Served(b -> b.webSocket(w -> w.maxFragments(64)));
                RawWebSocket raw = new RawWebSocket(served.port(), "/mcp/ws", "")) {
            raw.frame(RawWebSocket.TEXT, false, true, new byte[] {'['});
            int sent = 0;
            try {
                for (; sent < 10_000; sent++) {
                    raw.frame(RawWebSocket.CONTINUATION, false, true, new byte[0]);
                }
            } catch (java.io.IOException closed) {
                // the server closed the connection while the flood was still being written
            }
            assertThat(raw.awaitClose()).isEqualTo(1008);
            assertServes(served);
        }
    }

    @Test
    void closesAPingFloodWith1008() throws Exception {
        try (Served served = new Served(b -> b.webSocket(w -> w.maxControlFrames(20, Duration.ofSeconds(10))));
                RawWebSocket raw = new RawWebSocket(served.port(), "/mcp/ws", "")) {
            try {
                for (int i = 0; i < 10_000; i++) {
                    raw.frame(RawWebSocket.PING, true, true, new byte[] {1, 2});
                }
            } catch (java.io.IOException closed) {
                // the server closed the connection while the flood was still being written
            }
            int pongs = 0;
            RawWebSocket.Frame f;
            while ((f = raw.read()).opcode() != RawWebSocket.CLOSE) {
                assertThat(f.opcode()).isEqualTo(RawWebSocket.PONG);
                pongs++;
            }
            assertThat(f.closeCode()).isEqualTo(1008);
            assertThat(pongs).isBetween(1, 20);
            assertServes(served);
        }
    }

    @Test
    void closesABinaryMessageWith1003() throws Exception {
        try (Served served = new Served(); RawWebSocket raw = new RawWebSocket(served.port(), "/mcp/ws", "")) {
            raw.frame(RawWebSocket.BINARY, true, true, "{}".getBytes(StandardCharsets.UTF_8));
            assertThat(raw.awaitClose()).isEqualTo(1003);
        }
    }

    @Test
    void echoesTheClientsCloseAndEndsTheConnection() throws Exception {
        try (Served served = new Served(); RawWebSocket raw = new RawWebSocket(served.port(), "/mcp/ws", "")) {
            raw.frame(RawWebSocket.CLOSE, true, true, new byte[] {0x03, (byte) 0xE8});
            assertThat(raw.awaitClose()).isEqualTo(1000);
            assertThat(raw.closedByServer()).isTrue();
        }
    }

    @Test
    void pingsAQuietClientAndClosesItWith1001WhenNothingComesBack() throws Exception {
        try (Served served = new Served(b -> b.webSocket(w -> w.pingInterval(Duration.ofMillis(200))
                .idleTimeout(Duration.ofMillis(900))));
                RawWebSocket raw = new RawWebSocket(served.port(), "/mcp/ws", "")) {
            long started = System.nanoTime();
            RawWebSocket.Frame first = raw.read();
            assertThat(first.opcode()).isEqualTo(RawWebSocket.PING);
            raw.frame(RawWebSocket.PONG, true, true, first.payload());
            assertThat(raw.awaitClose()).isEqualTo(1001);
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isGreaterThanOrEqualTo(900);
        }
    }

    @Test
    void closesAClientThatStopsReadingWith1008AndCancelsItsWork() throws Exception {
        try (Served served = new Served(b -> b.connections(c -> c.maxBufferedResponseBytes(256 * 1024)));
                RawWebSocket raw = new RawWebSocket(served.port(), "/mcp/ws", "")) {
            ObjectNode chatty = toolCall("chatty", args("tag", "unread"));
            ((ObjectNode) chatty.get("arguments")).put("events", 20_000).put("size", 4096);
            chatty.putObject("_meta").put("progressToken", "p");
            raw.text(request(1, "tools/call", meta(chatty)));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!served.fixture.cancelled.contains("unread") && !served.fixture.finished.contains("unread")
                    && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(served.fixture.cancelled).contains("unread");
            // The work is cancelled as the close starts; the connection is counted out once the close completes.
            while (served.transport.webSocketConnections() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(served.transport.webSocketConnections()).isZero();
            assertServes(served);
        }
    }

    @Test
    void endsItsConnectionsWith1001OnShutdown() throws Exception {
        Served served = new Served();
        try (RawWebSocket raw = new RawWebSocket(served.port(), "/mcp/ws", "")) {
            raw.text(request(1, "tools/call", meta(toolCall("get_user", args("id", "1")))));
            assertThat(raw.readText()).contains("user1");
            served.close();
            assertThat(raw.awaitClose()).isEqualTo(1001);
        } finally {
            served.close();
        }
    }

    private static void assertServes(Served served) throws Exception {
        try (Client other = new Client(served.transport.webSocketUrl())) {
            assertServes(other);
        }
    }

    private static void assertServes(Client ws) throws Exception {
        JsonNode reply = ws.call(request("check", "tools/call", meta(toolCall("get_user", args("id", "42")))));
        assertThat(reply.path("result").path("content").get(0).path("text").asString()).contains("\"user42\"");
    }

    /** The JDK's WebSocket client: what a well-behaved client sends. */
    static final class Client implements WebSocket.Listener, AutoCloseable {
        private final HttpClient http = HttpClient.newHttpClient();
        private final BlockingQueue<String> received = new LinkedBlockingQueue<>();
        private final StringBuilder partial = new StringBuilder();
        final WebSocket socket;

        Client(String url) throws Exception {
            socket = http.newWebSocketBuilder().subprotocols("mcp").buildAsync(URI.create(url), this)
                    .get(10, TimeUnit.SECONDS);
        }

        void send(String text) throws Exception {
            socket.sendText(text, true).get(10, TimeUnit.SECONDS);
        }

        JsonNode next() throws InterruptedException {
            String text = received.poll(15, TimeUnit.SECONDS);
            assertThat(text).as("a message within 15 s").isNotNull();
            return Json.mapper().readTree(text);
        }

        JsonNode call(String request) throws Exception {
            send(request);
            return next();
        }

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            partial.append(data);
            if (last) {
                received.add(partial.toString());
                partial.setLength(0);
            }
            webSocket.request(1);
            return null;
        }

        @Override
        public void close() {
            socket.abort();
            http.close();
        }
    }
}
