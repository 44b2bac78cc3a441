package dev.tern.transport.http;

import java.net.http.HttpClient;

import org.junit.jupiter.api.Test;

import static dev.tern.transport.http.Mcp.args;
import static dev.tern.transport.http.Mcp.toolCall;
import static org.assertj.core.api.Assertions.assertThat;

/** {@code sseReplies}: every successful answer to a POST comes as the one event of an SSE stream, in both eras. */
class SseRepliesTest {

    @Test
    void answersComeAsStreamsInBothEras() throws Exception {
        try (Served served = new Served(b -> b.sse(s -> s.replies(true)));
                Mcp mcp = new Mcp(served.transport, HttpClient.Version.HTTP_1_1)) {
            Mcp.Reply modern = mcp.modern("tools/call", toolCall("get_user", args("id", "7")));
            assertThat(modern.status()).isEqualTo(200);
            assertThat(modern.isSse()).as("%s", modern).isTrue();
            assertThat(modern.messages()).hasSize(1);
            assertThat(modern.json().path("result").path("content").get(0).path("text").asString()).contains("user7");

            String session = mcp.initialize(Mcp.LEGACY);
            Mcp.Reply legacy = mcp.post(Mcp.request(5, "tools/call", toolCall("get_user", args("id", "7"))),
                    Mcp.legacyHeaders(session, Mcp.LEGACY));
            assertThat(legacy.isSse()).as("%s", legacy).isTrue();
            assertThat(legacy.json().path("id").asInt()).isEqualTo(5);
            assertThat(legacy.json().path("result").path("content").get(0).path("text").asString()).contains("user7");

            // Errors the transport answers with their own HTTP status stay JSON bodies.
            Mcp.Reply unknown = mcp.post(Mcp.request(6, "tools/call", toolCall("get_user", args("id", "7"))),
                    Mcp.legacyHeaders("no-such-session", Mcp.LEGACY));
            assertThat(unknown.status()).isEqualTo(404);
            assertThat(unknown.isSse()).isFalse();
        }
    }

    @Test
    void offByDefault() throws Exception {
        try (Served served = new Served(); Mcp mcp = new Mcp(served.transport, HttpClient.Version.HTTP_1_1)) {
            Mcp.Reply modern = mcp.modern("tools/call", toolCall("get_user", args("id", "7")));
            assertThat(modern.isSse()).isFalse();
            assertThat(modern.header("content-type")).startsWith("application/json");
        }
    }
}
