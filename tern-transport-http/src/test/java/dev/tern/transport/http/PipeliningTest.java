package dev.tern.transport.http;

import java.io.IOException;
import java.net.http.HttpClient;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import tools.jackson.databind.node.ObjectNode;

import static dev.tern.transport.http.Mcp.toolCall;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * HTTP/1.1 requests sent back to back on one connection before any answer (pipelining, RFC 9112 section 9.3.2) are
 * answered one by one in the order they came.
 */
class PipeliningTest {
    private static Served served;

    @BeforeAll
    static void start() throws InterruptedException {
        served = new Served();
    }

    @AfterAll
    static void stop() {
        served.close();
    }

    private static String call(int id, String tool) {
        ObjectNode params = Mcp.meta(toolCall(tool, tool.equals("get_user") ? Mcp.args("id", "7") : null));
        return RawHttp.modernPost(served.port(), Mcp.request(id, "tools/call", params),
                "Mcp-Method: tools/call\r\nMcp-Name: " + tool + "\r\n");
    }

    private static String health() {
        return "GET /health HTTP/1.1\r\nHost: 127.0.0.1:" + served.port() + "\r\n\r\n";
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrder() throws IOException {
        try (RawHttp raw = new RawHttp(served.port())) {
            raw.send(call(1, "get_user") + health() + call(2, "count") + call(3, "get_user"));
            RawHttp.Response first = raw.read();
            assertThat(first.status()).isEqualTo(200);
            assertThat(first.json().path("id").asInt()).isEqualTo(1);
            assertThat(first.json().path("result").path("content").get(0).path("text").asString()).contains("user7");
            RawHttp.Response second = raw.read();
            assertThat(second.status()).isEqualTo(200);
            assertThat(second.json().path("status").asString()).isEqualTo("UP");
            assertThat(raw.read().json().path("id").asInt()).isEqualTo(2);
            assertThat(raw.read().json().path("id").asInt()).isEqualTo(3);
            // The connection goes on serving after the backlog.
            raw.send(call(4, "get_user"));
            assertThat(raw.read().json().path("id").asInt()).isEqualTo(4);
        }
    }

    private static String calls(int count) {
        StringBuilder all = new StringBuilder();
        for (int i = 1; i <= count; i++) {
            all.append(call(i, "get_user"));
        }
        return all.toString();
    }

    @Test
    void aLongBacklogFromOneWriteIsServedInFull() throws IOException {
        int count = 100;
        try (RawHttp raw = new RawHttp(served.port())) {
            raw.send(calls(count));
            for (int i = 1; i <= count; i++) {
                RawHttp.Response r = raw.read();
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.json().path("id").asInt()).isEqualTo(i);
            }
        }
    }

    @Test
    void aBacklogDeeperThanTheLimitGetsTheAnswersReadThenAClose() throws IOException {
        int answered = 0;
        try (RawHttp raw = new RawHttp(served.port())) {
            raw.send(calls(1_000));
            while (true) {
                RawHttp.Response r;
                try {
                    r = raw.read();
                } catch (IOException closed) {
                    break;
                }
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.json().path("id").asInt()).isEqualTo(++answered);
            }
        }
        // The HTTP/1.1 codec reads up to 128 requests ahead of their answers, then closes after its next answer.
        assertThat(answered).isBetween(1, 999);
        try (Mcp mcp = new Mcp(served.transport, HttpClient.Version.HTTP_1_1)) {
            mcp.assertServes();
        }
    }

    @Test
    void aRequestSplitAcrossTheBacklogAndLaterSegmentsIsServed() throws Exception {
        String second = call(2, "get_user");
        int cut = second.length() - 20;
        try (RawHttp raw = new RawHttp(served.port())) {
            raw.send(call(1, "get_user") + second.substring(0, cut));
            assertThat(raw.read().json().path("id").asInt()).isEqualTo(1);
            Thread.sleep(50);
            raw.send(second.substring(cut));
            assertThat(raw.read().json().path("id").asInt()).isEqualTo(2);
        }
    }

    @Test
    void anIdleConnectionWhoseClientEndsItsInputIsClosed() throws IOException {
        try (RawHttp raw = new RawHttp(served.port())) {
            raw.send(call(1, "get_user"));
            assertThat(raw.read().json().path("id").asInt()).isEqualTo(1);
            raw.socket.shutdownOutput();
            assertThat(raw.closedByServer()).isTrue();
        }
    }

    @Test
    void aMalformedChunkedBodyIsRefusedWith400AndAClose() throws IOException {
        int port = served.port();
        try (RawHttp raw = new RawHttp(port)) {
            raw.send("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nContent-Type: application/json\r\n"
                    + "Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n5\r\n{\"jso\r\nzz\r\nnot a chunk\r\n");
            RawHttp.Response r = raw.read();
            assertThat(r.status()).isEqualTo(400);
            assertThat(r.code()).isEqualTo(-32600);
            assertThat(raw.closedByServer()).isTrue();
        }
    }
}
