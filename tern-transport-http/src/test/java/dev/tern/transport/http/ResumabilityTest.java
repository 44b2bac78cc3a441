package dev.tern.transport.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.tern.protocol.model.CallToolResult;
import dev.tern.server.McpServer;
import dev.tern.server.ToolSpec;

/**
 * SECURITY row 36 and 2025-11-25 resumability: a client that lost a request's SSE stream GETs it again with
 * {@code Last-Event-ID} and receives exactly the events it missed, then the rest; ids of other sessions or garbage
 * replay nothing.
 */
class ResumabilityTest {
    private final CountDownLatch release = new CountDownLatch(1);
    private McpServer server;
    private HttpServerTransport transport;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeEach
    void start() throws InterruptedException {
        server = McpServer.builder()
                .tool(ToolSpec.builder("steps").description("Progress, a pause, more progress, then the result.")
                        .handler((ctx, args) -> {
                            ctx.progress(1, 3.0, "one");
                            release.await(10, TimeUnit.SECONDS);
                            ctx.progress(2, 3.0, "two");
                            ctx.progress(3, 3.0, "three");
                            return CallToolResult.text("all steps done");
                        }).build())
                .build();
        transport = HttpServerTransport.builder(server).port(0).build().start();
    }

    @AfterEach
    void stop() {
        release.countDown();
        transport.close();
        server.close();
    }

    private HttpRequest.Builder post(String session, String body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(transport.url()))
                .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofString(body)).timeout(Duration.ofSeconds(20));
        if (session != null) {
            b.header("Mcp-Session-Id", session).header("MCP-Protocol-Version", "2025-11-25");
        }
        return b;
    }

    private String initialize() throws Exception {
        HttpResponse<String> init = http.send(post(null, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
                + "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}")
                .build(), HttpResponse.BodyHandlers.ofString());
        return init.headers().firstValue("mcp-session-id").orElseThrow();
    }

    private HttpResponse<Stream<String>> get(String session, String lastEventId) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(transport.url())).GET()
                .header("Accept", "text/event-stream").header("Mcp-Session-Id", session)
                .header("MCP-Protocol-Version", "2025-11-25");
        if (lastEventId != null) {
            b.header("Last-Event-ID", lastEventId);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofLines());
    }

    /** Reads SSE lines until one holds {@code marker}; returns the event ids seen and the data lines. */
    private static List<String> readUntil(Iterator<String> lines, String marker) {
        List<String> seen = new ArrayList<>();
        while (lines.hasNext()) {
            String line = lines.next();
            seen.add(line);
            if (line.contains(marker)) {
                return seen;
            }
        }
        return seen;
    }

    private static String lastId(List<String> lines) {
        String id = null;
        for (String l : lines) {
            if (l.startsWith("id: ")) {
                id = l.substring(4);
            }
        }
        return id;
    }

    @Test
    void aLostRequestStreamIsResumedWithExactlyTheMissedEvents() throws Exception {
        String session = initialize();
        HttpResponse<Stream<String>> call = http.send(post(session, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\","
                + "\"params\":{\"name\":\"steps\",\"_meta\":{\"progressToken\":\"p\"}}}").build(), HttpResponse.BodyHandlers.ofLines());
        assertThat(call.headers().firstValue("content-type").orElse("")).startsWith("text/event-stream");
        Iterator<String> lines = call.body().iterator();
        List<String> before = readUntil(lines, "\"message\":\"one\"");
        assertThat(before.get(0)).as("a priming event id comes first").startsWith("id: ");
        String lastSeen = lastId(before);
        call.body().close();

        release.countDown();
        Thread.sleep(200);
        HttpResponse<Stream<String>> resumed = get(session, lastSeen);
        assertThat(resumed.statusCode()).isEqualTo(200);
        List<String> after = readUntil(resumed.body().iterator(), "all steps done");
        String data = String.join("\n", after);
        assertThat(data).doesNotContain("\"message\":\"one\"").contains("\"message\":\"two\"", "\"message\":\"three\"",
                "all steps done");
        resumed.body().close();
    }

    @Test
    void aRequestStreamResumedWhileInFlightGoesOnLive() throws Exception {
        String session = initialize();
        HttpResponse<Stream<String>> call = http.send(post(session, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\","
                + "\"params\":{\"name\":\"steps\",\"_meta\":{\"progressToken\":\"p\"}}}").build(), HttpResponse.BodyHandlers.ofLines());
        String lastSeen = lastId(readUntil(call.body().iterator(), "\"message\":\"one\""));
        call.body().close();

        HttpResponse<Stream<String>> resumed = get(session, lastSeen);
        assertThat(resumed.statusCode()).isEqualTo(200);
        release.countDown();
        String data = String.join("\n", readUntil(resumed.body().iterator(), "all steps done"));
        assertThat(data).doesNotContain("\"message\":\"one\"").contains("\"message\":\"two\"", "\"message\":\"three\"",
                "all steps done");
        resumed.body().close();
    }

    @Test
    void foreignOrMalformedIdsReplayNothing() throws Exception {
        String other = initialize();
        HttpResponse<Stream<String>> call = http.send(post(other, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\","
                + "\"params\":{\"name\":\"steps\",\"_meta\":{\"progressToken\":\"p\"}}}").build(), HttpResponse.BodyHandlers.ofLines());
        List<String> others = readUntil(call.body().iterator(), "\"message\":\"one\"");
        String foreignId = lastId(others);
        call.body().close();
        release.countDown();

        for (String id : List.of(foreignId, "garbage", "1_99999")) {
            HttpResponse<Stream<String>> get = get(initialize(), id);
            assertThat(get.statusCode()).as("a fresh standalone stream for %s", id).isEqualTo(200);
            Iterator<String> lines = get.body().iterator();
            String first = lines.next();
            assertThat(first).as("no replay of %s, just the priming event", id).startsWith("id: ");
            assertThat(lines.next()).startsWith("retry: ");
            assertThat(lines.next()).isEqualTo("data: ");
            get.body().close();
        }
    }
}
