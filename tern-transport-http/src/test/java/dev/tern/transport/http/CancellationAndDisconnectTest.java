package dev.tern.transport.http;

import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.tern.protocol.Json;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import tools.jackson.databind.node.ObjectNode;

import static dev.tern.transport.http.Mcp.args;
import static dev.tern.transport.http.Mcp.toolCall;
import static org.assertj.core.api.Assertions.assertThat;

/** SECURITY.md rows 25 and 47: cancellation, and clients that vanish mid-request. */
class CancellationAndDisconnectTest {
    private Served served;

    @BeforeEach
    void start() throws InterruptedException {
        served = new Served(b -> b.limits(l -> l.maxInFlight(8)));
    }

    @AfterEach
    void stop() {
        served.close();
    }

    private static ObjectNode withProgress(ObjectNode params, String token) {
        ObjectNode p = params.deepCopy();
        p.putObject("_meta").put("progressToken", token);
        return p;
    }

    @ParameterizedTest
    @EnumSource(names = {"HTTP_1_1", "HTTP_2"})
    void row25LegacyCancelStopsTheWorkAndEndsThePost(HttpClient.Version version) throws Exception {
        try (Mcp mcp = new Mcp(served.transport, version)) {
            String session = mcp.initialize(Mcp.LEGACY);
            // More cancelled requests than maxInFlight: each must give its slot back.
            for (int i = 0; i < 10; i++) {
                String tag = "legacy-cancel-" + i;
                CompletableFuture<Mcp.Reply> call = CompletableFuture.supplyAsync(
                        () -> mcp.legacy(session, "req-" + tag, "tools/call", toolCall("slow", args("tag", tag))));
                served.fixture.awaitStarted(tag);
                Mcp.Reply cancel = mcp.post("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":"
                        + "{\"requestId\":\"req-" + tag + "\",\"reason\":\"user gave up\"}}", Mcp.legacyHeaders(session, Mcp.LEGACY));
                assertThat(cancel.status()).isEqualTo(202);
                Mcp.Reply ended = call.get(20, TimeUnit.SECONDS);
                assertThat(ended.status()).isEqualTo(200);
                assertThat(ended.messages()).as("nothing is sent for a cancelled request: %s", ended)
                        .noneMatch(m -> m.has("result") || m.has("error"));
                DirectoryFixture.await("tool saw the cancellation", () -> served.fixture.cancelled.contains(tag));
            }
            assertThat(served.fixture.finished).isEmpty();
            // A cancel for an unknown id is ignored.
            Mcp.Reply unknown = mcp.post("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":"
                    + "{\"requestId\":\"never-sent\"}}", Mcp.legacyHeaders(session, Mcp.LEGACY));
            assertThat(unknown.status()).isEqualTo(202);
            DirectoryFixture.await("in-flight count back to zero", () -> served.transport.inFlight() == 0);
            mcp.assertServes();
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"HTTP_1_1", "HTTP_2"})
    void row25ModernClosingTheStreamCancels(HttpClient.Version version) throws Exception {
        try (Mcp mcp = new Mcp(served.transport, version)) {
            for (int i = 0; i < 10; i++) {
                String tag = "modern-close-" + i;
                ObjectNode params = Mcp.meta(toolCall("slow", args("tag", tag)));
                ((ObjectNode) params.get("_meta")).put("progressToken", tag);
                var request = mcp.postBuilder(Mcp.request(i, "tools/call", params), Mcp.modernHeaders("tools/call", "slow")).build();
                HttpResponse<InputStream> response = mcp.client.send(request, HttpResponse.BodyHandlers.ofInputStream());
                assertThat(response.statusCode()).isEqualTo(200);
                assertThat(response.headers().firstValue("content-type").orElse("")).startsWith("text/event-stream");
                InputStream body = response.body();
                byte[] first = new byte[16];
                assertThat(body.read(first)).isPositive();
                body.close();
                DirectoryFixture.await("tool saw the stream close", () -> served.fixture.cancelled.contains(tag));
            }
            assertThat(served.fixture.finished).isEmpty();
            DirectoryFixture.await("in-flight count back to zero", () -> served.transport.inFlight() == 0);
            mcp.assertServes();
        }
    }

    @Test
    void row47AModernListenWhoseClientGoesAwayEndsAndFreesItsSlot() throws Exception {
        int port = served.port();
        ObjectNode params = Mcp.meta(Json.object());
        params.putObject("notifications").put("toolsListChanged", true);
        for (int i = 0; i < 3; i++) {
            RawHttp listen = new RawHttp(port);
            listen.send(RawHttp.modernPost(port, Mcp.request("listen-" + i, "subscriptions/listen", params),
                    "Mcp-Method: subscriptions/listen\r\n"));
            assertThat(listen.readHead().status()).isEqualTo(200);
            listen.readUntil("notifications/subscriptions/acknowledged");
            listen.reset();
        }
        // Ending a listen answers it, and that answer closes its channel again: once, without a leak (the class's
        // leak check) and with the slot given back.
        DirectoryFixture.await("listens end when their clients go", () -> served.transport.inFlight() == 0
                && served.transport.openListens() == 0);
        try (Mcp mcp = new Mcp(served.transport, HttpClient.Version.HTTP_1_1)) {
            mcp.assertServes();
        }
    }

    @Test
    void row47AbruptDisconnectMidPostMidSseAndMidBody() throws Exception {
        int port = served.port();
        // Mid-body: headers and half the body, then RST.
        String body = Mcp.request(1, "tools/call", Mcp.meta(toolCall("count", null)));
        for (int i = 0; i < 5; i++) {
            RawHttp raw = new RawHttp(port);
            String request = RawHttp.modernPost(port, body, "Mcp-Method: tools/call\r\nMcp-Name: count\r\n");
            raw.send(request.substring(0, request.length() - body.length() / 2));
            raw.reset();
        }
        assertThat(served.fixture.counted).hasValue(0);

        // Modern, mid-SSE over HTTP/1.1: RST after the first event; the disconnect cancels the request.
        String tag = "modern-rst";
        ObjectNode params = Mcp.meta(toolCall("slow", args("tag", tag)));
        ((ObjectNode) params.get("_meta")).put("progressToken", tag);
        RawHttp modern = new RawHttp(port);
        modern.send(RawHttp.modernPost(port, Mcp.request(7, "tools/call", params), "Mcp-Method: tools/call\r\nMcp-Name: slow\r\n"));
        assertThat(modern.readHead().status()).isEqualTo(200);
        modern.readUntil("notifications/progress");
        modern.reset();
        DirectoryFixture.await("modern request cancelled on disconnect", () -> served.fixture.cancelled.contains(tag));

        // Legacy, mid-SSE: the disconnect is not a cancellation; the work finishes, its response is dropped.
        try (Mcp mcp = new Mcp(served.transport, HttpClient.Version.HTTP_1_1)) {
            String session = mcp.initialize(Mcp.LEGACY);
            String legacyTag = "legacy-rst";
            RawHttp legacy = new RawHttp(port);
            String legacyBody = Mcp.request(8, "tools/call", withProgress(toolCall("slow", args("tag", legacyTag)), legacyTag));
            legacy.send("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nContent-Type: application/json\r\nAccept: "
                    + Mcp.ACCEPT + "\r\nMcp-Session-Id: " + session + "\r\nMCP-Protocol-Version: " + Mcp.LEGACY
                    + "\r\nContent-Length: " + legacyBody.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + legacyBody);
            assertThat(legacy.readHead().status()).isEqualTo(200);
            legacy.readUntil("notifications/progress");
            legacy.reset();
            DirectoryFixture.await("in-flight drops when the client goes", () -> served.transport.inFlight() == 0);
            assertThat(served.fixture.cancelled).doesNotContain(legacyTag);
            served.fixture.release(legacyTag).countDown();
            DirectoryFixture.await("legacy work finishes", () -> served.fixture.finished.contains(legacyTag));
            assertThat(served.fixture.cancelled).doesNotContain(legacyTag);
            // The session is intact.
            Mcp.Reply list = mcp.legacy(session, 9, "tools/list", Json.object());
            assertThat(list.status()).isEqualTo(200);
            mcp.assertServes();
        }
        DirectoryFixture.await("connections reclaimed", () -> served.transport.openConnections() <= 1);
        try (Mcp mcp = new Mcp(served.transport, HttpClient.Version.HTTP_2)) {
            mcp.assertServes();
        }
    }

    @Test
    void row25And48aHttp2ResetOfAStreamCancelsItsWork() throws Exception {
        try (RawH2 h2 = RawH2.connect(served.port())) {
            String tag = "h2-reset";
            ObjectNode params = Mcp.meta(toolCall("slow", args("tag", tag)));
            int stream = h2.post(Mcp.request(1, "tools/call", params), Map.of("mcp-method", "tools/call", "mcp-name", "slow"), true);
            served.fixture.awaitStarted(tag);
            h2.frame(RawH2.RST_STREAM, 0, stream, RawH2.int32(RawH2.CANCEL));
            DirectoryFixture.await("reset stream cancels the tool", () -> served.fixture.cancelled.contains(tag));
            // The connection itself goes on.
            int next = h2.post(Mcp.request(2, "tools/call", Mcp.meta(toolCall("get_user", args("id", "3")))),
                    Map.of("mcp-method", "tools/call", "mcp-name", "get_user"), true);
            RawH2.Response r = h2.response(next);
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.body()).contains("user3");
        }
    }
}
