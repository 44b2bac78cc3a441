package dev.tern.transport.http;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.tern.protocol.Json;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import static dev.tern.transport.http.Mcp.args;
import static dev.tern.transport.http.Mcp.toolCall;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Shutting down: requests in flight finish within the deadline, new requests get 503 with Retry-After, HTTP/2
 * clients get GOAWAY, 2026-07-28 listens end with their result, and SSE streams end with a {@code retry} hint.
 */
class GracefulShutdownTest {

    private static String legacyPost(int port, String session, String body) {
        return "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nContent-Type: application/json\r\nAccept: " + Mcp.ACCEPT
                + "\r\nMcp-Session-Id: " + session + "\r\nMCP-Protocol-Version: " + Mcp.LEGACY + "\r\nContent-Length: "
                + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + body;
    }

    private static String getStream(int port, String session) {
        return "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nAccept: text/event-stream\r\nMcp-Session-Id: " + session
                + "\r\nMCP-Protocol-Version: " + Mcp.LEGACY + "\r\n\r\n";
    }

    @Test
    void inFlightFinishesNewRequestsGet503AndStreamsEndWithRetry() throws Exception {
        Served served = new Served(b -> b.shutdownTimeout(Duration.ofSeconds(20)));
        int port = served.port();
        CompletableFuture<Void> closing = null;
        try (Mcp mcp = new Mcp(served.transport, HttpClient.Version.HTTP_1_1);
                RawHttp stream = new RawHttp(port); RawHttp keepAlive = new RawHttp(port);
                RawH2 h2 = RawH2.connect(port)) {
            String session = mcp.initialize(Mcp.LEGACY);
            stream.send(getStream(port, session));
            assertThat(stream.readHead().status()).isEqualTo(200);
            keepAlive.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n\r\n");
            assertThat(keepAlive.read().status()).isEqualTo(200);

            CompletableFuture<Mcp.Reply> modern = CompletableFuture.supplyAsync(
                    () -> mcp.modern("tools/call", toolCall("slow", args("tag", "drain-modern"))));
            CompletableFuture<Mcp.Reply> legacy = CompletableFuture.supplyAsync(
                    () -> mcp.legacy(session, 5, "tools/call", toolCall("slow", args("tag", "drain-legacy"))));
            served.fixture.awaitStarted("drain-modern");
            served.fixture.awaitStarted("drain-legacy");

            closing = CompletableFuture.runAsync(served.transport::close);
            DirectoryFixture.await("draining", served.transport::draining);

            // HTTP/2 clients are told to open no new streams.
            assertThat(h2.awaitGoAway()).isEqualTo(RawH2.NO_ERROR);
            // New requests on an open connection: 503, Retry-After, and the connection closes.
            String body = Mcp.request(9, "tools/call", Mcp.meta(toolCall("count", null)));
            keepAlive.send(RawHttp.modernPost(port, body, "Mcp-Method: tools/call\r\nMcp-Name: count\r\n"));
            RawHttp.Response refused = keepAlive.read();
            assertThat(refused.status()).isEqualTo(503);
            assertThat(Integer.parseInt(refused.headers().get("retry-after"))).isPositive();
            assertThat(refused.headers().get("connection")).isEqualTo("close");
            assertThat(refused.code()).isEqualTo(-32603);
            assertThat(keepAlive.closedByServer()).isTrue();
            // New connections are not accepted.
            assertThatThrownBy(() -> new Socket(InetAddress.getLoopbackAddress(), port).close())
                    .isInstanceOf(ConnectException.class);
            assertThat(served.fixture.counted).hasValue(0);

            // The requests in flight finish.
            served.fixture.release("drain-modern").countDown();
            served.fixture.release("drain-legacy").countDown();
            Mcp.Reply m = modern.get(20, TimeUnit.SECONDS);
            Mcp.Reply l = legacy.get(20, TimeUnit.SECONDS);
            assertThat(m.status()).isEqualTo(200);
            assertThat(m.json().path("result").path("content").path(0).path("text").asString()).isEqualTo("done drain-modern");
            assertThat(l.status()).isEqualTo(200);
            assertThat(l.json().path("result").path("content").path(0).path("text").asString()).isEqualTo("done drain-legacy");

            // Then the session's stream ends with a reconnection hint.
            String tail = stream.readUntil("retry:");
            assertThat(tail).containsPattern("retry: \\d+");
            assertThat(stream.closedByServer()).isTrue();
            closing.get(30, TimeUnit.SECONDS);
        } finally {
            if (closing != null) {
                closing.get(30, TimeUnit.SECONDS);
            }
            served.close();
        }
    }

    @Test
    void openListensEndWithTheirResultAtOnceAndDoNotHoldTheShutdown() throws Exception {
        // SubscriptionsListenResult: the answer that ends a listen when the server tears it down, as in a shutdown.
        Served served = new Served(b -> b.shutdownTimeout(Duration.ofSeconds(60)));
        int port = served.port();
        CompletableFuture<Void> closing = null;
        try (RawHttp listen = new RawHttp(port); RawHttp second = new RawHttp(port); RawH2 h2 = RawH2.connect(port)) {
            ObjectNode params = Mcp.meta(Json.object());
            params.putObject("notifications").put("toolsListChanged", true);
            listen.send(RawHttp.modernPost(port, Mcp.request("listen-1", "subscriptions/listen", params),
                    "Mcp-Method: subscriptions/listen\r\n"));
            second.send(RawHttp.modernPost(port, Mcp.request(2, "subscriptions/listen", params),
                    "Mcp-Method: subscriptions/listen\r\n"));
            for (RawHttp stream : new RawHttp[] {listen, second}) {
                assertThat(stream.readHead().status()).isEqualTo(200);
                stream.readUntil("notifications/subscriptions/acknowledged");
            }
            int h2Stream = h2.post(Mcp.request("over-h2", "subscriptions/listen", params),
                    java.util.Map.of("mcp-method", "subscriptions/listen"), true);
            assertThat(new String(h2.await(RawH2.DATA, h2Stream).payload(), StandardCharsets.UTF_8))
                    .contains("notifications/subscriptions/acknowledged");
            assertThat(served.transport.openListens()).isEqualTo(3);

            closing = CompletableFuture.runAsync(served.transport::close);

            JsonNode end = lastEvent(listen.readUntil("\"resultType\""));
            assertThat(end.path("id").asString()).isEqualTo("listen-1");
            assertThat(end.path("result").path("resultType").asString()).isEqualTo("complete");
            assertThat(end.path("result").path("_meta").path("io.modelcontextprotocol/subscriptionId").asString())
                    .isEqualTo("listen-1");
            assertThat(lastEvent(second.readUntil("\"resultType\"")).path("result").path("_meta")
                    .path("io.modelcontextprotocol/subscriptionId").asInt()).isEqualTo(2);
            assertThat(lastEvent(restOfStream(h2, h2Stream)).path("result").path("_meta")
                    .path("io.modelcontextprotocol/subscriptionId").asString()).isEqualTo("over-h2");
            // Nothing else held the shutdown: it ends long before its 60 s deadline, every listen forgotten.
            closing.get(20, TimeUnit.SECONDS);
            assertThat(served.transport.openListens()).isZero();
            assertThat(listen.closedByServer()).isTrue();
        } finally {
            if (closing != null) {
                closing.get(60, TimeUnit.SECONDS);
            }
            served.close();
        }
    }

    /** The DATA of {@code stream} up to its end; a GOAWAY (which lets open streams finish) is read past. */
    private static String restOfStream(RawH2 h2, int stream) throws IOException {
        StringBuilder body = new StringBuilder();
        for (int i = 0; i < 10_000; i++) {
            RawH2.Frame f = h2.next();
            if (f.type() == RawH2.RST_STREAM && f.stream() == stream) {
                throw new IOException("stream reset with error " + f.errorCode() + " after: " + body);
            }
            if (f.type() == RawH2.DATA && f.stream() == stream) {
                body.append(new String(f.payload(), StandardCharsets.UTF_8));
                if ((f.flags() & RawH2.END_STREAM) != 0) {
                    return body.toString();
                }
            }
        }
        throw new IOException("no end of stream " + stream + " after: " + body);
    }

    private static JsonNode lastEvent(String stream) {
        String data = stream.substring(stream.lastIndexOf("data: ") + "data: ".length());
        int end = data.indexOf('\n');
        return Json.mapper().readTree(end < 0 ? data : data.substring(0, end));
    }

    @Test
    void pastTheDeadlineOpenRequestsGet503OrARetryHint() throws Exception {
        Served served = new Served(b -> b.shutdownTimeout(Duration.ofMillis(300)));
        int port = served.port();
        try (Mcp mcp = new Mcp(served.transport, HttpClient.Version.HTTP_1_1);
                RawHttp streaming = new RawHttp(port); RawHttp pending = new RawHttp(port)) {
            // A 2026-07-28 request streaming progress, and a legacy request waiting for its answer.
            ObjectNode params = Mcp.meta(toolCall("slow", args("tag", "stuck-stream")));
            ((ObjectNode) params.get("_meta")).put("progressToken", "p");
            streaming.send(RawHttp.modernPost(port, Mcp.request(1, "tools/call", params), "Mcp-Method: tools/call\r\nMcp-Name: slow\r\n"));
            assertThat(streaming.readHead().status()).isEqualTo(200);
            streaming.readUntil("notifications/progress");
            String session = mcp.initialize(Mcp.LEGACY);
            pending.send(legacyPost(port, session, Mcp.request(2, "tools/call", toolCall("slow", args("tag", "stuck-json")))));
            served.fixture.awaitStarted("stuck-json");

            served.transport.close();

            assertThat(streaming.readUntil("retry:")).containsPattern("retry: \\d+");
            RawHttp.Response late = pending.read();
            assertThat(late.status()).isEqualTo(503);
            assertThat(late.headers().get("retry-after")).isNotNull();
            assertThat(late.code()).isEqualTo(-32603);
            assertThat(late.json().path("id").asInt()).isEqualTo(2);
        } catch (IOException e) {
            throw new AssertionError(e);
        } finally {
            served.close();
        }
    }
}
