package dev.tern.transport.http;

import java.io.IOException;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.tern.protocol.Json;

import org.junit.jupiter.api.Test;

import tools.jackson.databind.node.ObjectNode;

import static dev.tern.transport.http.Mcp.args;
import static dev.tern.transport.http.Mcp.toolCall;
import static org.assertj.core.api.Assertions.assertThat;

/** SECURITY.md rows 45-46: slowloris headers and bodies, and clients that stop reading. */
class SlowPeersTest {

    @Test
    void row45SlowlorisHeadersGet408AndTheSlotBack() throws Exception {
        try (Served served = new Served(b -> b.connections(c -> c.requestHeaderTimeout(Duration.ofMillis(400))))) {
            int port = served.port();
            try (RawHttp raw = new RawHttp(port)) {
                raw.send("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n");
                RawHttp.Response r = null;
                raw.socket.setSoTimeout(100);
                for (int i = 0; i < 200 && r == null; i++) {
                    try {
                        raw.send("X-Slow-" + i + ": a\r\n");
                    } catch (IOException closed) {
                        break;
                    }
                    try {
                        r = raw.read();
                    } catch (java.net.SocketTimeoutException notYet) {
                        // one more header line
                    }
                }
                raw.socket.setSoTimeout(15_000);
                if (r == null) {
                    r = raw.read();
                }
                assertThat(r.status()).isEqualTo(408);
                assertThat(r.code()).isEqualTo(-32600);
                assertThat(raw.closedByServer()).isTrue();
            }
            DirectoryFixture.await("slot reclaimed", () -> served.transport.openConnections() == 0);
            // An idle keep-alive connection is not a slowloris: it is not answered 408.
            try (Mcp mcp = new Mcp(served.transport, HttpClient.Version.HTTP_1_1)) {
                mcp.assertServes();
                Thread.sleep(600);
                mcp.assertServes();
            }
        }
    }

    @Test
    void anHttp2ConnectionOutlivesTheHeaderTimeoutThatGuardedItsFirstBytes() throws Exception {
        try (Served served = new Served(b -> b.connections(c -> c.requestHeaderTimeout(Duration.ofMillis(300))))) {
            try (RawH2 h2 = RawH2.connect(served.port())) {
                Thread.sleep(900);
                int stream = h2.post(Mcp.request(1, "tools/call", Mcp.meta(toolCall("get_user", args("id", "5")))),
                        Map.of("mcp-method", "tools/call", "mcp-name", "get_user"), true);
                assertThat(h2.response(stream).status()).isEqualTo(200);
            }
        }
    }

    @Test
    void aQuietListenKeepsItsHttp2ConnectionPastTheIdleTimeout() throws Exception {
        try (Served served = new Served(b -> b.connections(c -> c.idleTimeout(Duration.ofMillis(500)))
                .sse(s -> s.keepAlive(Duration.ofMillis(150))))) {
            ObjectNode params = Json.object();
            params.putObject("notifications").put("toolsListChanged", true);
            try (RawH2 h2 = RawH2.connect(served.port())) {
                h2.post(Mcp.request("quiet", "subscriptions/listen", Mcp.meta(params)),
                        Map.of("mcp-method", "subscriptions/listen"), true);
                DirectoryFixture.await("listen open", () -> served.transport.openListens() == 1);
                Thread.sleep(1_500);
                assertThat(served.transport.openListens()).isEqualTo(1);
                int next = h2.post(Mcp.request(2, "tools/call", Mcp.meta(toolCall("get_user", args("id", "5")))),
                        Map.of("mcp-method", "tools/call", "mcp-name", "get_user"), true);
                assertThat(h2.response(next).status()).isEqualTo(200);
            }
        }
    }

    @Test
    void row45SlowBodyGets408() throws Exception {
        try (Served served = new Served(b -> b.connections(c -> c.requestBodyTimeout(Duration.ofMillis(400))))) {
            int port = served.port();
            String body = Mcp.request(1, "tools/call", Mcp.meta(toolCall("count", null)));
            try (RawHttp raw = new RawHttp(port)) {
                String request = RawHttp.modernPost(port, body, "Mcp-Method: tools/call\r\nMcp-Name: count\r\n");
                raw.send(request.substring(0, request.length() - body.length()));
                RawHttp.Response r = null;
                raw.socket.setSoTimeout(100);
                for (int i = 0; i < body.length() - 1 && r == null; i++) {
                    try {
                        raw.send(body.substring(i, i + 1));
                    } catch (IOException closed) {
                        break;
                    }
                    try {
                        r = raw.read();
                    } catch (java.net.SocketTimeoutException notYet) {
                        // one more byte
                    }
                }
                raw.socket.setSoTimeout(15_000);
                if (r == null) {
                    r = raw.read();
                }
                assertThat(r.status()).isEqualTo(408);
                assertThat(r.code()).isEqualTo(-32600);
                assertThat(raw.closedByServer()).isTrue();
            }
            // HTTP/2: a stream whose body never ends gets 408; the connection goes on.
            try (RawH2 h2 = RawH2.connect(port)) {
                int stream = h2.post(body.substring(0, 10), Map.of("mcp-method", "tools/call", "mcp-name", "count"), false);
                RawH2.Response r = h2.response(stream);
                assertThat(r.status()).isEqualTo(408);
                int next = h2.post(Mcp.request(2, "tools/call", Mcp.meta(toolCall("get_user", args("id", "5")))),
                        Map.of("mcp-method", "tools/call", "mcp-name", "get_user"), true);
                assertThat(h2.response(next).status()).isEqualTo(200);
            }
            assertThat(served.fixture.counted).hasValue(0);
            DirectoryFixture.await("slots reclaimed", () -> served.transport.openConnections() == 0);
            try (Mcp mcp = new Mcp(served.transport, HttpClient.Version.HTTP_2)) {
                mcp.assertServes();
            }
        }
    }

    @Test
    void row45SlowBodyOfAPipelinedRequestGets408() throws Exception {
        // The second request's head and part of its body arrive with the first request, so the second is served
        // from the backlog once the first is answered, and no later read comes to start its body's clock.
        try (Served served = new Served(b -> b.connections(c -> c.requestBodyTimeout(Duration.ofMillis(400))))) {
            int port = served.port();
            String first = RawHttp.modernPost(port, Mcp.request(1, "tools/call", Mcp.meta(toolCall("get_user", args("id", "5")))),
                    "Mcp-Method: tools/call\r\nMcp-Name: get_user\r\n");
            String body = Mcp.request(2, "tools/call", Mcp.meta(toolCall("count", null)));
            String second = RawHttp.modernPost(port, body, "Mcp-Method: tools/call\r\nMcp-Name: count\r\n");
            try (RawHttp raw = new RawHttp(port)) {
                raw.send(first + second.substring(0, second.length() - body.length() / 2));
                raw.socket.setSoTimeout(15_000);
                assertThat(raw.read().status()).isEqualTo(200);
                RawHttp.Response r = raw.read();
                assertThat(r.status()).isEqualTo(408);
                assertThat(r.code()).isEqualTo(-32600);
                assertThat(raw.closedByServer()).isTrue();
            }
            assertThat(served.fixture.counted).hasValue(0);
        }
    }

    private static String chatty(String tag, int events, int size) {
        ObjectNode arguments = Json.object();
        arguments.put("tag", tag).put("events", events).put("size", size);
        ObjectNode params = Mcp.meta(toolCall("chatty", arguments));
        ((ObjectNode) params.get("_meta")).put("progressToken", tag);
        return Mcp.request(1, "tools/call", params);
    }

    @Test
    void row46ClientThatStopsReadingIsDroppedAndItsWorkStops() throws Exception {
        try (Served served = new Served(b -> b.connections(c -> c.maxBufferedResponseBytes(256 * 1024)
                .writeTimeout(Duration.ofMillis(500))))) {
            int port = served.port();
            // HTTP/1.1, zero reads, a small receive window: the buffer bound trips, the stream is dropped, and the
            // 2026-07-28 request is cancelled (the tool stops producing).
            java.net.Socket socket = new java.net.Socket();
            socket.setReceiveBufferSize(4096);
            socket.connect(new java.net.InetSocketAddress("127.0.0.1", port));
            String body = chatty("slow-reader", 20_000, 8 * 1024);
            socket.getOutputStream().write(RawHttp.modernPost(port, body, "Mcp-Method: tools/call\r\nMcp-Name: chatty\r\n")
                    .getBytes(StandardCharsets.UTF_8));
            DirectoryFixture.await("tool cancelled", () -> served.fixture.cancelled.contains("slow-reader"));
            assertThat(served.fixture.chattySent.get("slow-reader")).isLessThan(20_000);
            DirectoryFixture.await("connection dropped", () -> served.transport.openConnections() == 0);
            socket.close();

            // HTTP/2, the client never opens its flow-control window: the write timeout resets the stream.
            try (RawH2 h2 = RawH2.connect(port)) {
                int stream = h2.post(chatty("stalled", 40, 8 * 1024), Map.of("mcp-method", "tools/call", "mcp-name", "chatty"), true);
                RawH2.Frame reset = h2.await(RawH2.RST_STREAM, stream);
                assertThat(reset.stream()).isEqualTo(stream);
                // Give the connection window back; the connection still serves.
                h2.frame(RawH2.WINDOW_UPDATE, 0, 0, RawH2.int32(1 << 20));
                int next = h2.post(Mcp.request(2, "tools/call", Mcp.meta(toolCall("get_user", args("id", "5")))),
                        Map.of("mcp-method", "tools/call", "mcp-name", "get_user"), true);
                RawH2.Response r = h2.response(next);
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.body()).contains("user5");
            }
            DirectoryFixture.await("in flight back to zero", () -> served.transport.inFlight() == 0);
            try (Mcp mcp = new Mcp(served.transport, HttpClient.Version.HTTP_2)) {
                mcp.assertServes();
            }
        }
    }

    @Test
    void answeredExchangesDoNotWaitOutTheWriteTimeout() throws Exception {
        // A write watch left pending after an answer keeps its exchange (request, server channel) for the whole write
        // timeout: at thousands of calls per second that is hundreds of thousands of dead exchanges on the heap.
        try (Served served = new Served(b -> b.connections(c -> c.writeTimeout(Duration.ofHours(1))))) {
            for (HttpClient.Version version : List.of(HttpClient.Version.HTTP_1_1, HttpClient.Version.HTTP_2)) {
                try (Mcp mcp = new Mcp(served.transport, version)) {
                    String session = mcp.initialize("2025-11-25");
                    for (int i = 0; i < 50; i++) {
                        assertThat(mcp.modern(i, "tools/call", toolCall("get_user", args("id", "5"))).status())
                                .isEqualTo(200);
                        assertThat(mcp.legacy(session, i, "tools/call", toolCall("get_user", args("id", "5")))
                                .status()).isEqualTo(200);
                    }
                }
            }
            DirectoryFixture.await("no write watch pending", () -> served.transport.pendingWriteWatches() == 0);
        }
    }
}
