package dev.tern.transport.http;

import java.net.http.HttpClient;
import java.util.Map;

import dev.tern.protocol.Json;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import tools.jackson.databind.node.ObjectNode;

import static dev.tern.transport.http.Mcp.args;
import static dev.tern.transport.http.Mcp.modernHeaders;
import static dev.tern.transport.http.Mcp.toolCall;
import static org.assertj.core.api.Assertions.assertThat;

/** SECURITY.md rows 10-19: the JSON-RPC envelope and the MCP lifecycle, over HTTP/1.1 and h2c. */
class EnvelopeOverHttpTest {
    private Served served;

    @BeforeEach
    void start() throws InterruptedException {
        served = new Served();
    }

    @AfterEach
    void stop() {
        served.close();
    }

    private Mcp client(HttpClient.Version version) {
        return new Mcp(served.transport, version);
    }

    private static void assertError(Mcp.Reply reply, int status, int code) {
        assertThat(reply.status()).as("status of %s", reply).isEqualTo(status);
        assertThat(reply.code()).as("code of %s", reply).isEqualTo(code);
        assertThat(reply.body()).doesNotContain("Exception").doesNotContain("\tat ");
    }

    @ParameterizedTest
    @EnumSource(names = {"HTTP_1_1", "HTTP_2"})
    void row10JsonrpcMemberMissingWrongOrNumber(HttpClient.Version version) {
        try (Mcp mcp = client(version)) {
            String session = mcp.initialize(Mcp.LEGACY);
            for (String body : new String[] {
                "{\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"count\",\"arguments\":{}}}",
                "{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"count\",\"arguments\":{}}}",
                "{\"jsonrpc\":2.0,\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"count\",\"arguments\":{}}}"}) {
                assertError(mcp.post(body, modernHeaders("tools/call", "count")), 400, -32600);
                assertError(mcp.post(body, Mcp.legacyHeaders(session, Mcp.LEGACY)), 400, -32600);
            }
            assertThat(served.fixture.counted).hasValue(0);
            mcp.assertServes();
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"HTTP_1_1", "HTTP_2"})
    void row11IdNullObjectArrayOrFloat(HttpClient.Version version) {
        try (Mcp mcp = client(version)) {
            String session = mcp.initialize(Mcp.LEGACY);
            String params = Json.mapper().writeValueAsString(Mcp.meta(toolCall("count", null)));
            for (String id : new String[] {"null", "{\"a\":1}", "[1]", "1.5"}) {
                String body = "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":" + params + "}";
                Mcp.Reply modern = mcp.post(body, modernHeaders("tools/call", "count"));
                assertError(modern, 400, -32600);
                assertThat(modern.json().get("id").isNull()).isTrue();
                assertError(mcp.post(body, Mcp.legacyHeaders(session, Mcp.LEGACY)), 400, -32600);
            }
            assertThat(served.fixture.counted).hasValue(0);
            mcp.assertServes();
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"HTTP_1_1", "HTTP_2"})
    void row12MethodMissingOrNotAStringAndArrayParams(HttpClient.Version version) {
        try (Mcp mcp = client(version)) {
            String session = mcp.initialize(Mcp.LEGACY);
            for (String body : new String[] {
                "{\"jsonrpc\":\"2.0\",\"id\":3,\"params\":{}}",
                "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":42,\"params\":{}}"}) {
                assertError(mcp.post(body, modernHeaders("tools/call", "count")), 400, -32600);
                assertError(mcp.post(body, Mcp.legacyHeaders(session, Mcp.LEGACY)), 400, -32600);
            }
            String arrayParams = "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":[\"count\"]}";
            Mcp.Reply modern = mcp.post(arrayParams, modernHeaders("tools/call", "count"));
            assertError(modern, 400, -32602);
            assertThat(modern.json().path("id").asInt()).isEqualTo(4);
            assertError(mcp.post(arrayParams, Mcp.legacyHeaders(session, Mcp.LEGACY)), 400, -32602);
            assertThat(served.fixture.counted).hasValue(0);
            mcp.assertServes();
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"HTTP_1_1", "HTTP_2"})
    void row13UnknownMethod(HttpClient.Version version) {
        try (Mcp mcp = client(version)) {
            String session = mcp.initialize(Mcp.LEGACY);
            Mcp.Reply legacy = mcp.legacy(session, 5, "no/such_method", Json.object());
            assertError(legacy, 200, -32601);
            assertThat(legacy.json().path("id").asInt()).isEqualTo(5);
            Mcp.Reply modern = mcp.modern(6, "no/such_method", Json.object());
            assertError(modern, 404, -32601);
            assertThat(modern.json().path("id").asInt()).isEqualTo(6);
            mcp.assertServes();
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"HTTP_1_1", "HTTP_2"})
    void row14BatchesRejectedExceptIn20250326(HttpClient.Version version) {
        try (Mcp mcp = client(version)) {
            String count = Mcp.request(1, "tools/call", toolCall("count", null));
            String count2 = Mcp.request(2, "tools/call", toolCall("count", null));
            String batch = "[" + count + "," + count2 + "]";
            Mcp.Reply modern = mcp.post("[" + Mcp.request(1, "tools/call", Mcp.meta(toolCall("count", null))) + "]",
                    modernHeaders("tools/call", "count"));
            assertError(modern, 400, -32600);
            assertThat(modern.json().isObject()).isTrue();
            assertThat(modern.json().get("id").isNull()).isTrue();
            String session = mcp.initialize(Mcp.LEGACY);
            assertError(mcp.post(batch, Mcp.legacyHeaders(session, Mcp.LEGACY)), 400, -32600);
            String session0618 = mcp.initialize("2025-06-18");
            assertError(mcp.post(batch, Mcp.legacyHeaders(session0618, "2025-06-18")), 400, -32600);
            assertError(mcp.post(batch, Map.of()), 400, -32600);
            assertThat(served.fixture.counted).as("nothing in a refused batch runs").hasValue(0);

            String old = mcp.initialize("2025-03-26");
            Map<String, String> oldHeaders = Mcp.legacyHeaders(old, "2025-03-26");
            Mcp.Reply accepted = mcp.post(batch, oldHeaders);
            assertThat(accepted.status()).as("%s", accepted).isEqualTo(200);
            assertThat(accepted.messages().get(0).isArray()).isTrue();
            assertThat(accepted.messages().get(0)).hasSize(2);
            assertThat(served.fixture.counted).hasValue(2);
            Mcp.Reply empty = mcp.post("[]", oldHeaders);
            assertError(empty, 400, -32600);
            assertThat(empty.json().isObject()).as("an empty batch gets one error, not an array").isTrue();
            StringBuilder big = new StringBuilder("[");
            for (int i = 0; i < 101; i++) {
                big.append(i == 0 ? "" : ",").append(Mcp.request(100 + i, "tools/call", toolCall("count", null)));
            }
            assertError(mcp.post(big.append(']').toString(), oldHeaders), 400, -32600);
            assertThat(served.fixture.counted).as("an oversized batch runs nothing").hasValue(2);
            mcp.assertServes();
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"HTTP_1_1", "HTTP_2"})
    void row15NotificationsNeverGetAResponse(HttpClient.Version version) {
        try (Mcp mcp = client(version)) {
            String session = mcp.initialize(Mcp.LEGACY);
            String[] notifications = {
                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":\"never-sent\"}}",
                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{}}",
                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":[1,2]}",
                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/no_such_thing\"}"};
            for (String n : notifications) {
                Mcp.Reply legacy = mcp.post(n, Mcp.legacyHeaders(session, Mcp.LEGACY));
                assertThat(legacy.status()).as("%s -> %s", n, legacy).isEqualTo(202);
                assertThat(legacy.body()).isEmpty();
                Mcp.Reply modern = mcp.post(n, modernHeaders("notifications/cancelled", null));
                assertThat(modern.status()).as("%s -> %s", n, modern).isEqualTo(202);
                assertThat(modern.body()).isEmpty();
            }
            mcp.assertServes();
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"HTTP_1_1", "HTTP_2"})
    void row16ResponseWithUnknownId(HttpClient.Version version) {
        try (Mcp mcp = client(version)) {
            String session = mcp.initialize(Mcp.LEGACY);
            String response = "{\"jsonrpc\":\"2.0\",\"id\":\"nobody-asked\",\"result\":{}}";
            Mcp.Reply legacy = mcp.post(response, Mcp.legacyHeaders(session, Mcp.LEGACY));
            assertThat(legacy.status()).isEqualTo(202);
            assertThat(legacy.body()).isEmpty();
            assertError(mcp.post(response, modernHeaders("ping", null)), 400, -32600);
            mcp.assertServes();
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"HTTP_1_1", "HTTP_2"})
    void row17SameIdFromTwoClientsAndReuseInASession(HttpClient.Version version) throws Exception {
        try (Mcp a = client(version); Mcp b = client(version)) {
            String sa = a.initialize(Mcp.LEGACY);
            String sb = b.initialize(Mcp.LEGACY);
            var fa = java.util.concurrent.CompletableFuture.supplyAsync(
                    () -> a.legacy(sa, 1, "tools/call", toolCall("slow", args("tag", "legacy-a"))));
            var fb = java.util.concurrent.CompletableFuture.supplyAsync(
                    () -> b.legacy(sb, 1, "tools/call", toolCall("slow", args("tag", "legacy-b"))));
            var ma = java.util.concurrent.CompletableFuture.supplyAsync(
                    () -> a.modern(1, "tools/call", toolCall("slow", args("tag", "modern-a"))));
            var mb = java.util.concurrent.CompletableFuture.supplyAsync(
                    () -> b.modern(1, "tools/call", toolCall("slow", args("tag", "modern-b"))));
            for (String tag : new String[] {"legacy-a", "legacy-b", "modern-a", "modern-b"}) {
                served.fixture.awaitStarted(tag);
            }
            // id 1 is in flight in session a: reusing it there is refused, and does not disturb the first call.
            Mcp.Reply reuse = a.legacy(sa, 1, "tools/call", toolCall("count", null));
            assertError(reuse, 400, -32600);
            assertThat(served.fixture.counted).hasValue(0);
            for (String tag : new String[] {"legacy-a", "legacy-b", "modern-a", "modern-b"}) {
                served.fixture.release(tag).countDown();
            }
            assertThat(fa.get().json().path("result").path("content").path(0).path("text").asString()).isEqualTo("done legacy-a");
            assertThat(fb.get().json().path("result").path("content").path(0).path("text").asString()).isEqualTo("done legacy-b");
            assertThat(ma.get().json().path("result").path("content").path(0).path("text").asString()).isEqualTo("done modern-a");
            assertThat(mb.get().json().path("result").path("content").path(0).path("text").asString()).isEqualTo("done modern-b");
            for (Mcp.Reply r : new Mcp.Reply[] {fa.get(), fb.get(), ma.get(), mb.get()}) {
                assertThat(r.messages()).allSatisfy(m -> assertThat(m.path("id").isMissingNode() || m.path("id").asInt() == 1).isTrue());
            }
            a.assertServes();
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"HTTP_1_1", "HTTP_2"})
    void row18RequestBeforeInitializeAndSecondInitialize(HttpClient.Version version) {
        try (Mcp mcp = client(version)) {
            Mcp.Reply before = mcp.post(Mcp.request(1, "tools/call", toolCall("count", null)), Map.of());
            assertError(before, 400, -32600);
            Mcp.Reply withVersion = mcp.post(Mcp.request(1, "tools/call", toolCall("count", null)),
                    Map.of("MCP-Protocol-Version", Mcp.LEGACY));
            assertError(withVersion, 400, -32600);
            String session = mcp.initialize(Mcp.LEGACY);
            ObjectNode params = Json.object();
            params.put("protocolVersion", Mcp.LEGACY);
            params.putObject("capabilities");
            params.putObject("clientInfo").put("name", "again").put("version", "1");
            Mcp.Reply again = mcp.legacy(session, 2, "initialize", params);
            assertError(again, 400, -32600);
            assertThat(served.fixture.counted).hasValue(0);
            mcp.assertServes();
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"HTTP_1_1", "HTTP_2"})
    void row19UnsupportedProtocolVersion(HttpClient.Version version) {
        try (Mcp mcp = client(version)) {
            String session = mcp.initialize(Mcp.LEGACY);
            // Legacy: a session request with an unsupported version header is refused with 400.
            Mcp.Reply legacy = mcp.post(Mcp.request(2, "tools/call", toolCall("count", null)),
                    Mcp.legacyHeaders(session, "1999-01-01"));
            assertError(legacy, 400, -32022);
            assertThat(legacy.json().path("error").path("data").path("supported").toString()).contains(Mcp.LEGACY, Mcp.MODERN);
            // Modern: in _meta (and the header that mirrors it).
            ObjectNode params = Mcp.meta(toolCall("count", null));
            ((ObjectNode) params.get("_meta")).put("io.modelcontextprotocol/protocolVersion", "1999-01-01");
            Map<String, String> headers = new java.util.HashMap<>(modernHeaders("tools/call", "count"));
            headers.put("MCP-Protocol-Version", "1999-01-01");
            Mcp.Reply modern = mcp.post(Mcp.request(3, "tools/call", params), headers);
            assertError(modern, 400, -32022);
            assertThat(modern.json().path("error").path("data").path("supported").toString()).contains(Mcp.MODERN);
            assertThat(modern.json().path("error").path("data").path("requested").asString()).isEqualTo("1999-01-01");
            // A header-only unsupported version without _meta or a session.
            Mcp.Reply headerOnly = mcp.post(Mcp.request(4, "tools/call", toolCall("count", null)),
                    Map.of("MCP-Protocol-Version", "1999-01-01"));
            assertError(headerOnly, 400, -32022);
            // initialize with an unknown version is answered with a version the server supports.
            ObjectNode init = Json.object();
            init.put("protocolVersion", "1999-01-01");
            init.putObject("capabilities");
            init.putObject("clientInfo").put("name", "old").put("version", "1");
            Mcp.Reply negotiated = mcp.post(Mcp.request(1, "initialize", init), Map.of());
            assertThat(negotiated.status()).isEqualTo(200);
            assertThat(negotiated.json().path("result").path("protocolVersion").asString()).isEqualTo(Mcp.LEGACY);
            assertThat(served.fixture.counted).hasValue(0);
            mcp.assertServes();
        }
    }
}
