package dev.tern.transport.http;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import dev.tern.protocol.Json;

import org.junit.jupiter.api.Test;

import tools.jackson.databind.node.ObjectNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * SECURITY.md row 43, the per-tenant half: of each bound the server holds (legacy sessions, 2026-07-28 listens,
 * 2024-11-05 SSE connections) one client gets a share, so that it cannot take every place from the others. Beyond its
 * share a client is answered 429 with Retry-After; a client is its principal, or its address when anonymous.
 */
class ClientShareTest {
    private static final String LEGACY = "2025-11-25";

    private static String listenPost(int port, String id, String extra) {
        ObjectNode params = Mcp.meta(Json.object());
        params.putObject("notifications").put("toolsListChanged", true);
        return RawHttp.modernPost(port, Mcp.request(id, "subscriptions/listen", params),
                "Mcp-Method: subscriptions/listen\r\n" + extra);
    }

    private static RawHttp openListen(int port, String from, String id, String extra) throws IOException {
        RawHttp listen = new RawHttp(port, from);
        listen.send(listenPost(port, id, extra));
        RawHttp.Response head = listen.readHead();
        assertThat(head.status()).as("listen %s from %s", id, from).isEqualTo(200);
        listen.readUntil("notifications/subscriptions/acknowledged");
        return listen;
    }

    private static void assertTooMany(RawHttp.Response refused, String id) {
        assertThat(refused.status()).as("%s", refused).isEqualTo(429);
        assertThat(Integer.parseInt(refused.headers().get("retry-after"))).isPositive();
        assertThat(refused.code()).isEqualTo(-32603);
        assertThat(refused.json().path("error").path("message").asString()).contains("share");
        if (id != null) {
            assertThat(refused.json().path("id").asString()).isEqualTo(id);
        }
    }

    @Test
    void aClientBeyondItsShareOfListensIsAnswered429AndTheOthersAreNotTouched() throws Exception {
        try (Served served = new Served(b -> b.sessions(s -> s.max(100).maxPerClient(2)))) {
            int port = served.port();
            List<RawHttp> open = new ArrayList<>();
            try {
                open.add(openListen(port, "127.0.0.2", "a-0", ""));
                open.add(openListen(port, "127.0.0.2", "a-1", ""));
                try (RawHttp third = new RawHttp(port, "127.0.0.2")) {
                    third.send(listenPost(port, "a-2", ""));
                    assertTooMany(third.read(), "a-2");
                }
                // Another address has a share of its own.
                open.add(openListen(port, "127.0.0.3", "b-0", ""));
                open.add(openListen(port, "127.0.0.3", "b-1", ""));
                // A listen that ends gives its place back to its client.
                open.remove(0).reset();
                DirectoryFixture.await("a listen given back", () -> served.transport.openListens() == 3);
                open.add(openListen(port, "127.0.0.2", "a-3", ""));
            } finally {
                for (RawHttp listen : open) {
                    listen.reset();
                }
            }
        }
    }

    @Test
    void listensMultiplexedOnOneHttp2ConnectionShareTheirClientsPlaces() throws Exception {
        try (Served served = new Served(b -> b.sessions(s -> s.max(100).maxPerClient(2)));
                RawH2 h2 = RawH2.connect(served.port())) {
            int port = served.port();
            ObjectNode params = Mcp.meta(Json.object());
            params.putObject("notifications").put("toolsListChanged", true);
            java.util.Map<String, String> listen = java.util.Map.of("mcp-method", "subscriptions/listen");
            for (String id : List.of("h2-0", "h2-1")) {
                int stream = h2.post(Mcp.request(id, "subscriptions/listen", params), listen, true);
                assertThat(new String(h2.await(RawH2.DATA, stream).payload(), StandardCharsets.UTF_8))
                        .contains("notifications/subscriptions/acknowledged");
            }
            RawH2.Response third = h2.response(h2.post(Mcp.request("h2-2", "subscriptions/listen", params), listen, true));
            assertThat(third.status()).as("%s", third).isEqualTo(429);
            assertThat(third.headers().get("retry-after")).isNotNull();
            assertThat(third.body()).contains("share").contains("h2-2");
            // Calls are not counted, and another address has places of its own.
            String count = Mcp.request("call", "tools/call", Mcp.meta(Mcp.toolCall("count", null)));
            RawH2.Response call = h2.response(h2.post(count,
                    java.util.Map.of("mcp-method", "tools/call", "mcp-name", "count"), true));
            assertThat(call.status()).as("%s", call).isEqualTo(200);
            openListen(port, "127.0.0.2", "elsewhere", "").reset();
            assertThat(served.transport.openListens()).isGreaterThanOrEqualTo(2);
        }
    }

    @Test
    void principalsFromOneAddressEachHaveTheirOwnShare() throws Exception {
        PrincipalResolver byToken = headers -> {
            String auth = headers.get("authorization");
            return auth == null ? null : auth.substring("Bearer ".length());
        };
        try (Served served = new Served(b -> b.sessions(s -> s.max(100).maxPerClient(1).principals(byToken)))) {
            int port = served.port();
            List<RawHttp> open = new ArrayList<>();
            try {
                open.add(openListen(port, "127.0.0.2", "alice-0", "Authorization: Bearer alice\r\n"));
                open.add(openListen(port, "127.0.0.2", "bob-0", "Authorization: Bearer bob\r\n"));
                open.add(openListen(port, "127.0.0.2", "anonymous-0", ""));
                try (RawHttp again = new RawHttp(port, "127.0.0.2")) {
                    again.send(listenPost(port, "alice-1", "Authorization: Bearer alice\r\n"));
                    assertTooMany(again.read(), "alice-1");
                }
                try (RawHttp again = new RawHttp(port, "127.0.0.2")) {
                    again.send(listenPost(port, "anonymous-1", ""));
                    assertTooMany(again.read(), "anonymous-1");
                }
            } finally {
                for (RawHttp listen : open) {
                    listen.reset();
                }
            }
        }
    }

    private static String initialize(int port, String id) {
        String body = "{\"jsonrpc\":\"2.0\",\"id\":\"" + id + "\",\"method\":\"initialize\",\"params\":{\"protocolVersion\":\""
                + LEGACY + "\",\"capabilities\":{},\"clientInfo\":{\"name\":\"share-test\",\"version\":\"1\"}}}";
        return "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nContent-Type: application/json\r\n"
                + "Accept: application/json, text/event-stream\r\nContent-Length: "
                + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + body;
    }

    private static String delete(int port, String session) {
        return "DELETE /mcp HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nMcp-Session-Id: " + session
                + "\r\nMCP-Protocol-Version: " + LEGACY + "\r\nContent-Length: 0\r\n\r\n";
    }

    @Test
    void aClientBeyondItsShareOfSessionsIsAnswered429UntilItEndsOne() throws Exception {
        try (Served served = new Served(b -> b.sessions(s -> s.max(100).maxPerClient(2)));
                RawHttp a = new RawHttp(served.port(), "127.0.0.2");
                RawHttp b = new RawHttp(served.port(), "127.0.0.3")) {
            int port = served.port();
            List<String> sessions = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                RawHttp.Response opened = a.send(initialize(port, "init-" + i)).read();
                assertThat(opened.status()).as("%s", opened).isEqualTo(200);
                sessions.add(opened.headers().get("mcp-session-id"));
            }
            assertTooMany(a.send(initialize(port, "init-2")).read(), "init-2");
            assertThat(served.transport.sessionCount()).isEqualTo(2);

            RawHttp.Response other = b.send(initialize(port, "other")).read();
            assertThat(other.status()).as("%s", other).isEqualTo(200);

            assertThat(a.send(delete(port, sessions.get(0))).read().status()).isEqualTo(200);
            RawHttp.Response again = a.send(initialize(port, "init-3")).read();
            assertThat(again.status()).as("%s", again).isEqualTo(200);
        }
    }

    @Test
    void aPlaceIsGivenBackWhenTheServerIsFullWhenInitializeFailsAndWhenASessionExpires() throws Exception {
        try (Served served = new Served(b -> b.sessions(s -> s.max(2).maxPerClient(2)
                .idleTimeout(java.time.Duration.ofMillis(400))));
                RawHttp a = new RawHttp(served.port(), "127.0.0.2");
                RawHttp b = new RawHttp(served.port(), "127.0.0.3")) {
            int port = served.port();
            // An initialize the server cannot take: the session it began is dropped, and its place with it.
            String broken = "{\"jsonrpc\":\"2.0\",\"id\":\"broken\",\"method\":\"initialize\",\"params\":{}}";
            RawHttp.Response refused = a.send("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:" + port
                    + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
                    + "Content-Length: " + broken.length() + "\r\n\r\n" + broken).read();
            assertThat(refused.json().has("error")).as("%s", refused).isTrue();
            assertThat(served.transport.sessionCount()).isZero();

            assertThat(a.send(initialize(port, "a-0")).read().status()).isEqualTo(200);
            RawHttp.Response bOpened = b.send(initialize(port, "b-0")).read();
            assertThat(bOpened.status()).isEqualTo(200);
            // The server is full (2 of 2) while a holds one place of its 2: 503, and the place it took is given back.
            RawHttp.Response full = a.send(initialize(port, "a-1")).read();
            assertThat(full.status()).as("%s", full).isEqualTo(503);
            assertThat(b.send(delete(port, bOpened.headers().get("mcp-session-id"))).read().status()).isEqualTo(200);
            assertThat(a.send(initialize(port, "a-2")).read().status()).as("a's second place").isEqualTo(200);
            assertTooMany(a.send(initialize(port, "a-3")).read(), "a-3");

            // a's sessions expire when idle; so do the places they held.
            Thread.sleep(1_100);
            RawHttp.Response afterExpiry = a.send(initialize(port, "a-4")).read();
            assertThat(afterExpiry.status()).as("%s", afterExpiry).isEqualTo(200);
        }
    }

    @Test
    void aClientBeyondItsShareOf2024SseConnectionsIsAnswered429() throws Exception {
        try (Served served = new Served(b -> b.sse(s -> s.legacy("/sse", "/messages"))
                .sessions(s -> s.max(100).maxPerClient(1)))) {
            int port = served.port();
            String get = "GET /sse HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nAccept: text/event-stream\r\n\r\n";
            RawHttp first = new RawHttp(port, "127.0.0.2");
            try {
                first.send(get);
                assertThat(first.readHead().status()).isEqualTo(200);
                first.readUntil("event: endpoint");
                try (RawHttp second = new RawHttp(port, "127.0.0.2")) {
                    assertTooMany(second.send(get).read(), null);
                }
                try (RawHttp elsewhere = new RawHttp(port, "127.0.0.3")) {
                    assertThat(elsewhere.send(get).readHead().status()).isEqualTo(200);
                }
            } finally {
                first.reset();
            }
            DirectoryFixture.await("the stream given back", () -> {
                try (RawHttp again = new RawHttp(port, "127.0.0.2")) {
                    return again.send(get).readHead().status() == 200;
                } catch (IOException e) {
                    return false;
                }
            });
        }
    }
}
