package dev.tern.transport.http;

import java.io.IOException;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.tern.protocol.CodecLimits;
import dev.tern.protocol.Json;

import org.junit.jupiter.api.Test;

import tools.jackson.databind.node.ObjectNode;

import static dev.tern.transport.http.Mcp.args;
import static dev.tern.transport.http.Mcp.toolCall;
import static org.assertj.core.api.Assertions.assertThat;

/** SECURITY.md rows 41-44: body, header and URI size limits, overload shedding, connection floods. */
class LimitsTest {
    private static final int CAP = 64 * 1024;

    private static Served limited() throws InterruptedException {
        return new Served(b -> b.limits(l -> l.messages(CodecLimits.DEFAULT.withMaxMessageBytes(CAP))));
    }

    private static void assertRejected(RawHttp.Response r, int status) {
        assertThat(r.status()).as("%s", r).isEqualTo(status);
        assertThat(r.code()).as("%s", r).isEqualTo(-32600);
        assertThat(r.json().get("id").isNull()).isTrue();
    }

    @Test
    void row41BodyOverTheCapIsRefusedBeforeItIsRead() throws Exception {
        try (Served served = limited()) {
            int port = served.port();
            String head = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nContent-Type: application/json\r\nAccept: "
                    + Mcp.ACCEPT + "\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\n";
            // Content-Length of 6 MB: 413 after the headers alone, then the connection closes.
            try (RawHttp raw = new RawHttp(port)) {
                raw.send(head + "Content-Length: 6000000\r\n\r\n");
                RawHttp.Response r = raw.read();
                assertRejected(r, 413);
                assertThat(r.headers().get("connection")).isEqualTo("close");
                assertThat(raw.closedByServer()).isTrue();
            }
            // Expect: 100-continue is answered 413, never 100.
            try (RawHttp raw = new RawHttp(port)) {
                raw.send(head + "Expect: 100-continue\r\nContent-Length: 6000000\r\n\r\n");
                assertRejected(raw.read(), 413);
            }
            // Chunked without a length: reading stops at the cap.
            try (RawHttp raw = new RawHttp(port)) {
                raw.send(head + "Transfer-Encoding: chunked\r\n\r\n");
                String chunk = Integer.toHexString(16 * 1024) + "\r\n" + "[".repeat(16 * 1024) + "\r\n";
                RawHttp.Response r = null;
                raw.socket.setSoTimeout(100);
                for (int i = 0; i < 400 && r == null; i++) {
                    try {
                        raw.send(chunk);
                    } catch (IOException closed) {
                        break;
                    }
                    try {
                        r = raw.read();
                    } catch (java.net.SocketTimeoutException notYet) {
                        // keep sending
                    }
                }
                raw.socket.setSoTimeout(15_000);
                if (r == null) {
                    r = raw.read();
                }
                assertRejected(r, 413);
                assertThat(raw.closedByServer()).isTrue();
            }
            // HTTP/2: the stream gets 413; the connection goes on.
            try (RawH2 h2 = RawH2.connect(port)) {
                int stream = h2.nextStreamId();
                Map<String, String> headers = new LinkedHashMap<>(Map.of("content-type", "application/json",
                        "accept", Mcp.ACCEPT, "mcp-protocol-version", Mcp.MODERN, "mcp-method", "tools/call"));
                h2.frame(RawH2.HEADERS, RawH2.END_HEADERS, stream,
                        RawH2.hpack(RawH2.requestFields("POST", "127.0.0.1:" + port, "/mcp", headers)));
                byte[] chunk = "[".repeat(16 * 1024).getBytes(StandardCharsets.US_ASCII);
                for (int i = 0; i < 6; i++) {
                    h2.frame(RawH2.DATA, 0, stream, chunk);
                }
                RawH2.Response r = h2.response(stream);
                assertThat(r.status()).isEqualTo(413);
                assertThat(Json.mapper().readTree(r.body()).path("error").path("code").asInt()).isEqualTo(-32600);
                int next = h2.post(Mcp.request(2, "tools/call", Mcp.meta(toolCall("get_user", args("id", "5")))),
                        Map.of("mcp-method", "tools/call", "mcp-name", "get_user"), true);
                assertThat(h2.response(next).status()).isEqualTo(200);
            }
            // A real client with a body over the cap.
            try (Mcp mcp = new Mcp(served.transport, HttpClient.Version.HTTP_1_1)) {
                Mcp.Reply big = mcp.post("{\"pad\":\"" + "x".repeat(CAP) + "\"}", Mcp.modernHeaders("tools/call", "count"));
                assertThat(big.status()).isEqualTo(413);
                assertThat(big.code()).isEqualTo(-32600);
                assertThat(served.fixture.counted).hasValue(0);
                mcp.assertServes();
            }
        }
    }

    @Test
    void row42HugeHeadersTooManyHeadersAndLongUris() throws Exception {
        try (Served served = limited()) {
            int port = served.port();
            String start = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nContent-Type: application/json\r\n";
            try (RawHttp raw = new RawHttp(port)) {
                raw.send(start + "X-Big: " + "a".repeat(20_000) + "\r\nContent-Length: 2\r\n\r\n{}");
                assertRejected(raw.read(), 431);
            }
            try (RawHttp raw = new RawHttp(port)) {
                StringBuilder many = new StringBuilder(start);
                for (int i = 0; i < 3_000; i++) {
                    many.append("X-H").append(i).append(": v\r\n");
                }
                raw.send(many + "Content-Length: 2\r\n\r\n{}");
                assertRejected(raw.read(), 431);
            }
            try (RawHttp raw = new RawHttp(port)) {
                raw.send("GET /mcp?" + "q".repeat(100 * 1024) + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n\r\n");
                assertRejected(raw.read(), 414);
            }
            // HTTP/2: a header list over SETTINGS_MAX_HEADER_LIST_SIZE gets 431 (or a reset), not the handler.
            try (RawH2 h2 = RawH2.connect(port)) {
                int stream = h2.nextStreamId();
                Map<String, String> headers = new LinkedHashMap<>(Map.of("content-type", "application/json",
                        "x-big", "b".repeat(17 * 1024)));
                byte[] block = RawH2.hpack(RawH2.requestFields("POST", "127.0.0.1:" + port, "/mcp", headers));
                int first = 16 * 1024;
                h2.frame(RawH2.HEADERS, 0, stream, java.util.Arrays.copyOfRange(block, 0, first));
                h2.frame(RawH2.CONTINUATION, RawH2.END_HEADERS, stream, java.util.Arrays.copyOfRange(block, first, block.length));
                h2.frame(RawH2.DATA, RawH2.END_STREAM, stream, "{}".getBytes(StandardCharsets.US_ASCII));
                RawH2.Response r = h2.response(stream);
                assertThat(r.status() == 431 || r.resetCode() >= 0).as("431 or RST_STREAM: %s", r).isTrue();
                int next = h2.post(Mcp.request(2, "tools/call", Mcp.meta(toolCall("get_user", args("id", "5")))),
                        Map.of("mcp-method", "tools/call", "mcp-name", "get_user"), true);
                assertThat(h2.response(next).status()).isEqualTo(200);
            }
            try (Mcp mcp = new Mcp(served.transport, HttpClient.Version.HTTP_2)) {
                mcp.assertServes();
            }
        }
    }

    @Test
    void row43LoadBeyondCapacityIsShedWith503AndRetryAfter() throws Exception {
        try (Served served = new Served(b -> b.limits(l -> l.maxInFlight(2)));
                Mcp mcp = new Mcp(served.transport, HttpClient.Version.HTTP_2)) {
            List<CompletableFuture<Mcp.Reply>> held = new ArrayList<>();
            for (String tag : new String[] {"held-1", "held-2"}) {
                held.add(CompletableFuture.supplyAsync(() -> mcp.modern("tools/call", toolCall("slow", args("tag", tag)))));
                served.fixture.awaitStarted(tag);
            }
            for (int i = 0; i < 20; i++) {
                Mcp.Reply shed = mcp.modern("tools/call", toolCall("count", null));
                assertThat(shed.status()).isEqualTo(503);
                assertThat(shed.header("retry-after")).isNotNull();
                assertThat(Integer.parseInt(shed.header("retry-after"))).isPositive();
                assertThat(shed.code()).isEqualTo(-32603);
            }
            assertThat(served.fixture.counted).hasValue(0);
            served.fixture.release("held-1").countDown();
            served.fixture.release("held-2").countDown();
            for (CompletableFuture<Mcp.Reply> f : held) {
                assertThat(f.get(20, TimeUnit.SECONDS).status()).isEqualTo(200);
            }
            mcp.assertServes();
        }
    }

    @Test
    void row43OpenListensTakeNoSlotOfTheRequestsInFlightAndAreCappedOfTheirOwn() throws Exception {
        // A 2026-07-28 listen is the stream a client keeps open, as a legacy session's GET stream: held by the clients
        // of a busy server by the thousand, it must not shed their calls, and is bounded as sessions are.
        try (Served served = new Served(b -> b.limits(l -> l.maxInFlight(2)).sessions(s -> s.max(3)));
                Mcp mcp = new Mcp(served.transport, HttpClient.Version.HTTP_1_1)) {
            int port = served.port();
            ObjectNode params = Mcp.meta(Json.object());
            params.putObject("notifications").put("toolsListChanged", true);
            List<RawHttp> listens = new ArrayList<>();
            try {
                for (int i = 0; i < 3; i++) {
                    RawHttp listen = new RawHttp(port);
                    listens.add(listen);
                    listen.send(RawHttp.modernPost(port, Mcp.request("listen-" + i, "subscriptions/listen", params),
                            "Mcp-Method: subscriptions/listen\r\n"));
                    assertThat(listen.readHead().status()).isEqualTo(200);
                    listen.readUntil("notifications/subscriptions/acknowledged");
                }
                assertThat(served.transport.inFlight()).isZero();
                mcp.assertServes();
                assertThat(mcp.modern("tools/call", toolCall("count", null)).status()).isEqualTo(200);

                try (RawHttp fourth = new RawHttp(port)) {
                    fourth.send(RawHttp.modernPost(port, Mcp.request("listen-3", "subscriptions/listen", params),
                            "Mcp-Method: subscriptions/listen\r\n"));
                    RawHttp.Response refused = fourth.read();
                    assertThat(refused.status()).isEqualTo(503);
                    assertThat(Integer.parseInt(refused.headers().get("retry-after"))).isPositive();
                    assertThat(refused.code()).isEqualTo(-32603);
                    assertThat(refused.json().path("id").asString()).isEqualTo("listen-3");
                }
            } finally {
                for (RawHttp listen : listens) {
                    listen.reset();
                }
            }
            DirectoryFixture.await("listens given back", () -> served.transport.openListens() == 0);
            RawHttp again = new RawHttp(port);
            again.send(RawHttp.modernPost(port, Mcp.request("listen-4", "subscriptions/listen", params),
                    "Mcp-Method: subscriptions/listen\r\n"));
            assertThat(again.readHead().status()).isEqualTo(200);
            again.reset();
        }
    }

    @Test
    void row44ConnectionFloodIsCappedPerAddressAndInTotal() throws Exception {
        try (Served served = new Served(b -> b.connections(c -> c.maxPerAddress(8).max(14)));
                Mcp existing = new Mcp(served.transport, HttpClient.Version.HTTP_2)) {
            existing.assertServes();
            int port = served.port();
            List<RawHttp> flood = new ArrayList<>();
            try {
                for (int i = 0; i < 20; i++) {
                    flood.add(new RawHttp(port, "127.0.0.2"));
                }
                int open = 0;
                for (RawHttp raw : flood) {
                    raw.socket.setSoTimeout(300);
                    if (!raw.closedByServer()) {
                        open++;
                    }
                }
                assertThat(open).as("idle connections kept from one address").isEqualTo(8);
                existing.assertServes();
                List<RawHttp> more = new ArrayList<>();
                for (int i = 0; i < 10; i++) {
                    more.add(new RawHttp(port, "127.0.0.3"));
                }
                flood.addAll(more);
                int openMore = 0;
                for (RawHttp raw : more) {
                    raw.socket.setSoTimeout(300);
                    if (!raw.closedByServer()) {
                        openMore++;
                    }
                }
                assertThat(served.transport.openConnections()).as("total cap").isLessThanOrEqualTo(14);
                assertThat(openMore).isLessThanOrEqualTo(14 - 8 - 1);
                existing.assertServes();
            } finally {
                for (RawHttp raw : flood) {
                    raw.close();
                }
            }
            DirectoryFixture.await("flood connections reclaimed", () -> served.transport.openConnections() <= 2);
            try (Mcp fresh = new Mcp(served.transport, HttpClient.Version.HTTP_1_1)) {
                fresh.assertServes();
            }
        }
    }
}
