package dev.tern.transport.http;

import java.io.IOException;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static dev.tern.transport.http.Mcp.args;
import static dev.tern.transport.http.Mcp.toolCall;
import static org.assertj.core.api.Assertions.assertThat;

/** SECURITY.md row 48a: HTTP/2 floods and resets, each met with GOAWAY or RST_STREAM after a threshold. */
class Http2AbuseTest {
    private Served served;

    @BeforeEach
    void start() throws InterruptedException {
        served = new Served(b -> b.http2(h -> h.maxResets(20, Duration.ofSeconds(30)).maxConcurrentStreams(4)
                .maxQueuedControlFrames(200).maxSmallContinuationFrames(8)));
    }

    @AfterEach
    void stop() throws Exception {
        try (Mcp mcp = new Mcp(served.transport, HttpClient.Version.HTTP_2)) {
            mcp.assertServes();
        }
        assertThat(served.fixture.counted).as("no abusive stream ran a tool").hasValue(0);
        served.close();
    }

    private Map<String, String> postHeaders() {
        Map<String, String> h = new LinkedHashMap<>();
        h.put("content-type", "application/json");
        h.put("accept", Mcp.ACCEPT);
        h.put("mcp-protocol-version", Mcp.MODERN);
        h.put("mcp-method", "tools/call");
        h.put("mcp-name", "count");
        return RawH2.requestFields("POST", "127.0.0.1:" + served.port(), "/mcp", h);
    }

    /** Opens a stream with HEADERS and no END_STREAM: the request body is still to come. */
    private int open(RawH2 h2) throws IOException {
        int stream = h2.nextStreamId();
        h2.frame(RawH2.HEADERS, RawH2.END_HEADERS, stream, RawH2.hpack(postHeaders()));
        return stream;
    }

    @Test
    void rapidResetEndsWithEnhanceYourCalm() throws Exception {
        try (RawH2 h2 = RawH2.connect(served.port())) {
            try {
                // Just past the threshold (20): a client that keeps writing after GOAWAY could make the kernel
                // reset the connection and lose the GOAWAY.
                for (int i = 0; i < 30; i++) {
                    int stream = open(h2);
                    h2.frame(RawH2.RST_STREAM, 0, stream, RawH2.int32(RawH2.CANCEL));
                }
            } catch (IOException closedByServer) {
                // the server may close before the loop ends
            }
            assertThat(h2.awaitGoAway()).isEqualTo(RawH2.ENHANCE_YOUR_CALM);
        }
    }

    @Test
    void madeYouResetEndsWithEnhanceYourCalm() throws Exception {
        try (RawH2 h2 = RawH2.connect(served.port())) {
            try {
                for (int i = 0; i < 30; i++) {
                    int stream = open(h2);
                    // An illegal WINDOW_UPDATE makes the server reset the stream itself.
                    h2.frame(RawH2.WINDOW_UPDATE, 0, stream, RawH2.int32(0));
                }
            } catch (IOException closedByServer) {
                // the server may close before the loop ends
            }
            assertThat(h2.awaitGoAway()).isEqualTo(RawH2.ENHANCE_YOUR_CALM);
        }
    }

    @Test
    void continuationFloodIsCut() throws Exception {
        try (RawH2 h2 = RawH2.connect(served.port())) {
            int stream = h2.nextStreamId();
            h2.frame(RawH2.HEADERS, 0, stream, RawH2.hpack(postHeaders()));
            try {
                for (int i = 0; i < 50; i++) {
                    h2.frame(RawH2.CONTINUATION, 0, stream, new byte[0]);
                }
            } catch (IOException closedByServer) {
                // expected once the server gives up
            }
            int code = h2.awaitGoAway();
            assertThat(code).as("GOAWAY code (-1: closed)").isIn(RawH2.ENHANCE_YOUR_CALM, RawH2.PROTOCOL_ERROR);
        }
    }

    @Test
    void pingFloodFromAClientThatDoesNotReadIsCut() throws Exception {
        try (RawH2 h2 = RawH2.connect(served.port(), 4096)) {
            try {
                h2.flood(RawH2.PING, 0, 0, new byte[8], 2_000_000);
            } catch (IOException closedByServer) {
                // expected once the server gives up
            }
            assertThat(h2.awaitGoAway()).isIn(RawH2.ENHANCE_YOUR_CALM, -1);
        }
    }

    @Test
    void settingsFloodFromAClientThatDoesNotReadIsCut() throws Exception {
        try (RawH2 h2 = RawH2.connect(served.port(), 4096)) {
            try {
                h2.flood(RawH2.SETTINGS, 0, 0, new byte[0], 3_000_000);
            } catch (IOException closedByServer) {
                // expected once the server gives up
            }
            assertThat(h2.awaitGoAway()).isIn(RawH2.ENHANCE_YOUR_CALM, -1);
        }
    }

    @Test
    void emptyDataFramesAreCut() throws Exception {
        try (RawH2 h2 = RawH2.connect(served.port())) {
            int stream = open(h2);
            try {
                for (int i = 0; i < 10; i++) {
                    h2.frame(RawH2.DATA, 0, stream, new byte[0]);
                }
            } catch (IOException closedByServer) {
                // expected once the server gives up
            }
            assertThat(h2.awaitGoAway()).isEqualTo(RawH2.ENHANCE_YOUR_CALM);
        }
    }

    @Test
    void streamsBeyondMaxConcurrentStreamsAreRefused() throws Exception {
        try (RawH2 h2 = RawH2.connect(served.port())) {
            int[] held = new int[4];
            for (int i = 0; i < held.length; i++) {
                held[i] = open(h2);
            }
            int excess = open(h2);
            RawH2.Frame refused = h2.await(RawH2.RST_STREAM, excess);
            assertThat(refused.errorCode()).isEqualTo(RawH2.REFUSED_STREAM);
            // Ending one held stream frees a slot on the same connection.
            h2.frame(RawH2.RST_STREAM, 0, held[0], RawH2.int32(RawH2.CANCEL));
            int next = h2.post(Mcp.request(2, "tools/call", Mcp.meta(toolCall("get_user", args("id", "9")))),
                    Map.of("mcp-method", "tools/call", "mcp-name", "get_user"), true);
            RawH2.Response r = h2.response(next);
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.body()).contains("user9");
        }
    }
}
