package dev.tern.transport.http;

import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import dev.tern.protocol.Json;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import tools.jackson.databind.node.ObjectNode;

import static dev.tern.transport.http.Mcp.args;
import static dev.tern.transport.http.Mcp.modernHeaders;
import static dev.tern.transport.http.Mcp.toolCall;
import static org.assertj.core.api.Assertions.assertThat;

/** SECURITY.md rows 27-36: HTTP headers, CORS, content negotiation and sessions. */
class HeadersAndSessionsTest {
    private Served served;

    @BeforeEach
    void start() throws InterruptedException {
        served = new Served(b -> b.allowOrigin("https://app.example")
                .sessions(s -> s.idleTimeout(Duration.ofMillis(300))));
    }

    @AfterEach
    void stop() {
        served.close();
    }

    private static void assertError(Mcp.Reply reply, int status, int code) {
        assertThat(reply.status()).as("status of %s", reply).isEqualTo(status);
        assertThat(reply.code()).as("code of %s", reply).isEqualTo(code);
        assertThat(reply.json().get("id").isNull()).as("id of %s", reply).isTrue();
    }

    private static void assertError(RawHttp.Response reply, int status, int code) {
        assertThat(reply.status()).as("status of %s", reply).isEqualTo(status);
        assertThat(reply.code()).as("code of %s", reply).isEqualTo(code);
    }

    private static Map<String, String> with(Map<String, String> base, String... keyValues) {
        Map<String, String> m = new HashMap<>(base);
        for (int i = 0; i < keyValues.length; i += 2) {
            m.put(keyValues[i], keyValues[i + 1]);
        }
        return m;
    }

    private static String modernCall(String tool, ObjectNode arguments) {
        return Mcp.request(1, "tools/call", Mcp.meta(toolCall(tool, arguments)));
    }

    @ParameterizedTest
    @EnumSource(names = {"HTTP_1_1", "HTTP_2"})
    void row27ForeignOrNullOriginIsForbidden(HttpClient.Version version) {
        try (Mcp mcp = new Mcp(served.transport, version)) {
            String session = mcp.initialize(Mcp.LEGACY);
            for (String origin : new String[] {"http://evil.example", "null", "https://app.example.evil.example",
                "http://localhost.evil.example"}) {
                Mcp.Reply modern = mcp.post(modernCall("count", null), with(modernHeaders("tools/call", "count"), "Origin", origin));
                assertError(modern, 403, -32600);
                assertThat(modern.header("access-control-allow-origin")).isNull();
                Mcp.Reply legacy = mcp.post(Mcp.request(2, "tools/call", toolCall("count", null)),
                        with(Mcp.legacyHeaders(session, Mcp.LEGACY), "Origin", origin));
                assertError(legacy, 403, -32600);
            }
            assertThat(served.fixture.counted).hasValue(0);
            Mcp.Reply allowed = mcp.post(modernCall("count", null),
                    with(modernHeaders("tools/call", "count"), "Origin", "https://app.example"));
            assertThat(allowed.status()).isEqualTo(200);
            assertThat(allowed.header("access-control-allow-origin")).isEqualTo("https://app.example");
            Mcp.Reply local = mcp.post(modernCall("count", null),
                    with(modernHeaders("tools/call", "count"), "Origin", "http://localhost:" + served.port()));
            assertThat(local.status()).isEqualTo(200);
            mcp.assertServes();
        }
    }

    @Test
    void row28DnsRebindingHostIsForbidden() throws Exception {
        int port = served.port();
        String body = modernCall("count", null);
        for (String host : new String[] {"evil.example:" + port, "evil.example", "127.0.0.1.evil.example:" + port,
            "localhost.:" + port}) {
            try (RawHttp raw = new RawHttp(port)) {
                String request = RawHttp.modernPost(port, body, "Mcp-Method: tools/call\r\nMcp-Name: count\r\n")
                        .replace("Host: 127.0.0.1:" + port, "Host: " + host);
                assertError(raw.send(request).read(), 403, -32600);
            }
        }
        try (RawHttp raw = new RawHttp(port)) {
            String noHost = RawHttp.modernPost(port, body, "Mcp-Method: tools/call\r\nMcp-Name: count\r\n")
                    .replace("Host: 127.0.0.1:" + port + "\r\n", "");
            assertThat(raw.send(noHost).read().status()).isIn(400, 403);
        }
        // HTTP/2: the :authority pseudo-header is checked like Host.
        try (RawH2 h2 = RawH2.connect(port)) {
            int stream = h2.request("POST", "evil.example:" + port, "/mcp", Map.of("content-type", "application/json",
                    "accept", Mcp.ACCEPT, "mcp-protocol-version", Mcp.MODERN, "mcp-method", "tools/call", "mcp-name", "count"),
                    body.getBytes(StandardCharsets.UTF_8));
            RawH2.Response r = h2.response(stream);
            assertThat(r.status()).isEqualTo(403);
            assertThat(Json.mapper().readTree(r.body()).path("error").path("code").asInt()).isEqualTo(-32600);
        }
        assertThat(served.fixture.counted).hasValue(0);
        try (Mcp mcp = new Mcp(served.transport, HttpClient.Version.HTTP_1_1)) {
            mcp.assertServes();
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"HTTP_1_1", "HTTP_2"})
    void row29CorsPreflight(HttpClient.Version version) {
        try (Mcp mcp = new Mcp(served.transport, version)) {
            var evil = mcp.send(java.net.http.HttpRequest.newBuilder(mcp.uri)
                    .method("OPTIONS", java.net.http.HttpRequest.BodyPublishers.noBody())
                    .header("Origin", "http://evil.example").header("Access-Control-Request-Method", "POST")
                    .header("Access-Control-Request-Headers", "content-type, mcp-session-id").build());
            assertThat(evil.status()).isEqualTo(403);
            assertThat(evil.header("access-control-allow-origin")).isNull();
            assertThat(evil.header("access-control-allow-credentials")).isNull();
            var good = mcp.send(java.net.http.HttpRequest.newBuilder(mcp.uri)
                    .method("OPTIONS", java.net.http.HttpRequest.BodyPublishers.noBody())
                    .header("Origin", "https://app.example").header("Access-Control-Request-Method", "POST").build());
            assertThat(good.status()).isEqualTo(204);
            assertThat(good.header("access-control-allow-origin")).isEqualTo("https://app.example");
            assertThat(good.headers().allValues("vary").toString().toLowerCase()).contains("origin");
            assertThat(good.header("access-control-allow-credentials")).isNull();
            assertThat(good.headers().allValues("access-control-allow-origin")).doesNotContain("*");
            mcp.assertServes();
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"HTTP_1_1", "HTTP_2"})
    void row30ContentTypeMustBeJson(HttpClient.Version version) {
        try (Mcp mcp = new Mcp(served.transport, version)) {
            String session = mcp.initialize(Mcp.LEGACY);
            for (String type : new String[] {"text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"}) {
                assertError(mcp.post(modernCall("count", null), with(modernHeaders("tools/call", "count"), "Content-Type", type)),
                        415, -32600);
                assertError(mcp.post(Mcp.request(2, "tools/call", toolCall("count", null)),
                        with(Mcp.legacyHeaders(session, Mcp.LEGACY), "Content-Type", type)), 415, -32600);
            }
            var missing = mcp.send(java.net.http.HttpRequest.newBuilder(mcp.uri)
                    .POST(java.net.http.HttpRequest.BodyPublishers.ofString(modernCall("count", null)))
                    .header("Accept", Mcp.ACCEPT).header("MCP-Protocol-Version", Mcp.MODERN)
                    .header("Mcp-Method", "tools/call").header("Mcp-Name", "count").build());
            assertError(missing, 415, -32600);
            assertThat(served.fixture.counted).hasValue(0);
            mcp.assertServes();
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"HTTP_1_1", "HTTP_2"})
    void row31AcceptMustListBothTypes(HttpClient.Version version) {
        try (Mcp mcp = new Mcp(served.transport, version)) {
            String session = mcp.initialize(Mcp.LEGACY);
            for (String accept : new String[] {"application/json", "text/event-stream", "text/html"}) {
                assertError(mcp.post(modernCall("count", null), with(modernHeaders("tools/call", "count"), "Accept", accept)),
                        406, -32600);
                assertError(mcp.post(Mcp.request(2, "tools/call", toolCall("count", null)),
                        with(Mcp.legacyHeaders(session, Mcp.LEGACY), "Accept", accept)), 406, -32600);
            }
            Mcp.Reply get = mcp.get(mcp.uri, with(Mcp.legacyHeaders(session, Mcp.LEGACY), "Accept", "application/json"));
            assertError(get, 406, -32600);
            assertThat(served.fixture.counted).hasValue(0);
            mcp.assertServes();
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"HTTP_1_1", "HTTP_2"})
    void row32LegacyRequestWithoutSession(HttpClient.Version version) {
        try (Mcp mcp = new Mcp(served.transport, version)) {
            mcp.initialize(Mcp.LEGACY);
            Mcp.Reply withVersion = mcp.post(Mcp.request(2, "tools/list", Json.object()), Map.of("MCP-Protocol-Version", Mcp.LEGACY));
            assertThat(withVersion.status()).isEqualTo(400);
            assertThat(withVersion.code()).isEqualTo(-32600);
            assertThat(withVersion.json().path("id").asInt()).isEqualTo(2);
            Mcp.Reply noHeaders = mcp.post(Mcp.request(3, "tools/call", toolCall("count", null)), Map.of());
            assertThat(noHeaders.status()).isEqualTo(400);
            assertThat(noHeaders.code()).isEqualTo(-32600);
            assertThat(served.fixture.counted).hasValue(0);
            mcp.assertServes();
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"HTTP_1_1", "HTTP_2"})
    void row33UnknownDeletedOrExpiredSessionIs404(HttpClient.Version version) throws Exception {
        try (Mcp mcp = new Mcp(served.transport, version)) {
            String unknown = Base64.getUrlEncoder().withoutPadding().encodeToString(new byte[32]);
            assertError(mcp.legacy(unknown, 2, "tools/list", Json.object()), 404, -32600);
            String deleted = mcp.initialize(Mcp.LEGACY);
            var delete = mcp.send(java.net.http.HttpRequest.newBuilder(mcp.uri).DELETE()
                    .header("Mcp-Session-Id", deleted).header("MCP-Protocol-Version", Mcp.LEGACY).build());
            assertThat(delete.status()).isEqualTo(200);
            assertError(mcp.legacy(deleted, 3, "tools/list", Json.object()), 404, -32600);
            assertError(mcp.get(mcp.uri, with(Mcp.legacyHeaders(deleted, Mcp.LEGACY), "Accept", "text/event-stream")), 404, -32600);
            String expiring = mcp.initialize(Mcp.LEGACY);
            DirectoryFixture.await("session expiry", () -> served.transport.sessionCount() == 0);
            assertError(mcp.legacy(expiring, 4, "tools/list", Json.object()), 404, -32600);
            mcp.assertServes();
        }
    }

    @Test
    void row34SessionIdsAreUnguessableAndWellFormed() throws Exception {
        try (Mcp mcp = new Mcp(served.transport, HttpClient.Version.HTTP_1_1)) {
            Set<String> ids = new HashSet<>();
            for (int i = 0; i < 20; i++) {
                String id = mcp.initialize(Mcp.LEGACY);
                assertThat(id).matches("[A-Za-z0-9_-]{43}");
                assertThat(Base64.getUrlDecoder().decode(id)).hasSize(32);
                ids.add(id);
            }
            assertThat(ids).hasSize(20);
            String forged = ids.iterator().next();
            forged = (forged.charAt(0) == 'A' ? 'B' : 'A') + forged.substring(1);
            assertError(mcp.legacy(forged, 2, "tools/list", Json.object()), 404, -32600);
            assertError(mcp.legacy("x".repeat(129), 2, "tools/list", Json.object()), 400, -32600);
        }
        int port = served.port();
        String body = Mcp.request(2, "tools/list", Json.object());
        for (String bad : new String[] {"abc def", "abc\u007fdef", "caf\u00e9", "a\tb"}) {
            try (RawHttp raw = new RawHttp(port)) {
                String request = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nContent-Type: application/json\r\n"
                        + "Accept: " + Mcp.ACCEPT + "\r\nMcp-Session-Id: " + bad + "\r\nMCP-Protocol-Version: " + Mcp.LEGACY
                        + "\r\nContent-Length: " + body.length() + "\r\n\r\n" + body;
                assertError(raw.send(request).read(), 400, -32600);
            }
        }
        try (Mcp mcp = new Mcp(served.transport, HttpClient.Version.HTTP_1_1)) {
            mcp.assertServes();
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"HTTP_1_1", "HTTP_2"})
    void row35ModernHeadersMustMatchTheBody(HttpClient.Version version) {
        try (Mcp mcp = new Mcp(served.transport, version)) {
            String call = modernCall("lookup", args("id", "42", "region", "eu-west"));
            Map<String, String> good = with(modernHeaders("tools/call", "lookup"), "Mcp-Param-Region", "eu-west");
            assertThat(mcp.post(call, good).status()).isEqualTo(200);
            String b64 = "=?base64?" + Base64.getEncoder().encodeToString("lookup".getBytes(StandardCharsets.UTF_8)) + "?=";
            assertThat(mcp.post(call, with(good, "Mcp-Name", b64)).status()).isEqualTo(200);

            Map<String, String> noMethod = new HashMap<>(good);
            noMethod.remove("Mcp-Method");
            Map<String, String> noName = new HashMap<>(good);
            noName.remove("Mcp-Name");
            Map<String, String> noParam = new HashMap<>(good);
            noParam.remove("Mcp-Param-Region");
            Map<String, String> noVersion = new HashMap<>(good);
            noVersion.remove("MCP-Protocol-Version");
            for (Map<String, String> bad : java.util.List.of(noMethod, noName, noParam, noVersion,
                    with(good, "Mcp-Method", "tools/list"),
                    with(good, "Mcp-Name", "get_user"),
                    with(good, "Mcp-Name", "=?base64?bm90LWxvb2t1cA==?="),
                    with(good, "Mcp-Name", "=?base64?!!!notbase64?="),
                    with(good, "Mcp-Param-Region", "us-east"),
                    with(good, "Mcp-Param-Region", "=?base64?dXMtZWFzdA==?="))) {
                Mcp.Reply r = mcp.post(call, bad);
                assertThat(r.status()).as("%s -> %s", bad, r).isEqualTo(400);
                assertThat(r.code()).as("%s -> %s", bad, r).isEqualTo(-32020);
            }
            // GET and DELETE do not exist in 2026-07-28.
            Map<String, String> modernGet = Map.of("MCP-Protocol-Version", Mcp.MODERN, "Accept", "text/event-stream");
            Mcp.Reply get = mcp.get(mcp.uri, modernGet);
            assertThat(get.status()).isEqualTo(405);
            assertThat(get.header("allow")).contains("POST");
            var delete = mcp.send(java.net.http.HttpRequest.newBuilder(mcp.uri).DELETE()
                    .header("MCP-Protocol-Version", Mcp.MODERN).build());
            assertThat(delete.status()).isEqualTo(405);
            // Mcp-Session-Id and Last-Event-ID are ignored, and no session is minted.
            Mcp.Reply ignored = mcp.post(call, with(good, "Mcp-Session-Id", "made-up-session", "Last-Event-ID", "42"));
            assertThat(ignored.status()).isEqualTo(200);
            assertThat(ignored.header("mcp-session-id")).isNull();
            assertThat(served.transport.sessionCount()).isZero();
            mcp.assertServes();
        }
    }

    @Test
    void row36LastEventIdNeverReplaysAnotherStream() throws Exception {
        int port = served.port();
        try (Mcp mcp = new Mcp(served.transport, HttpClient.Version.HTTP_1_1)) {
            String a = mcp.initialize(Mcp.LEGACY);
            String b = mcp.initialize(Mcp.LEGACY);
            try (RawHttp streamA = new RawHttp(port); RawHttp streamB = new RawHttp(port); RawHttp garbage = new RawHttp(port)) {
                streamA.send(getStream(port, a, null));
                assertThat(streamA.readHead().status()).isEqualTo(200);
                // Session b presents a "resumption" id it could have seen from session a, and garbage.
                streamB.send(getStream(port, b, a + "/0"));
                RawHttp.Response headB = streamB.readHead();
                assertThat(headB.status()).isEqualTo(200);
                String c = mcp.initialize(Mcp.LEGACY);
                garbage.send(getStream(port, c, "\u00ff\u00fe../../etc/passwd"));
                assertThat(garbage.readHead().status()).isEqualTo(200);
                served.fixture.server.addTool(dev.tern.server.ToolSpec.builder("late_tool")
                        .inputSchema(Json.object().put("type", "object"))
                        .handler((ctx, args) -> dev.tern.protocol.model.CallToolResult.text("late")).build());
                String seenA = streamA.readUntil("list_changed");
                String seenB = streamB.readUntil("list_changed");
                assertThat(seenA).contains("notifications/tools/list_changed");
                // b receives its own notification once, and nothing of a's stream.
                assertThat(seenB.split("list_changed", -1)).hasSize(2);
                assertThat(seenB).doesNotContain(a);
            }
            mcp.assertServes();
        }
    }

    private static String getStream(int port, String session, String lastEventId) {
        return "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nAccept: text/event-stream\r\nMcp-Session-Id: " + session
                + "\r\nMCP-Protocol-Version: " + Mcp.LEGACY + "\r\n" + (lastEventId == null ? "" : "Last-Event-ID: " + lastEventId + "\r\n")
                + "\r\n";
    }
}
