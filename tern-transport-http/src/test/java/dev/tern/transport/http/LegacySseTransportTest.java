package dev.tern.transport.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Iterator;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.tern.protocol.Json;
import dev.tern.protocol.model.CallToolResult;
import dev.tern.server.McpServer;
import dev.tern.server.ToolSpec;

import tools.jackson.databind.JsonNode;

/**
 * The deprecated HTTP+SSE transport of 2024-11-05: GET /sse announces the messages endpoint, POSTs are answered 202
 * and every server message comes on the stream; bad POSTs get specific errors; the session ends with its stream.
 */
class LegacySseTransportTest {
    private McpServer server;
    private HttpServerTransport transport;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeEach
    void start() throws InterruptedException {
        server = McpServer.builder().info("sse-test", "1.0.0")
                .tool(ToolSpec.builder("twice").description("Reports progress, then answers.")
                        .handler((ctx, args) -> {
                            ctx.progress(1, 1.0, "halfway");
                            return CallToolResult.text("done twice");
                        }).build())
                .build();
        transport = HttpServerTransport.builder(server).port(0).build().start();
    }

    @AfterEach
    void stop() {
        transport.close();
        server.close();
    }

    private String base() {
        return transport.url().replace("/mcp", "");
    }

    private HttpResponse<Stream<String>> openStream() throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(base() + "/sse")).header("Accept", "text/event-stream")
                .timeout(Duration.ofSeconds(20)).GET().build(), HttpResponse.BodyHandlers.ofLines());
    }

    private HttpResponse<String> post(String pathAndQuery, String contentType, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(base() + pathAndQuery)).header("Content-Type", contentType)
                .timeout(Duration.ofSeconds(20)).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** The data of the next event on the stream (skipping keep-alive comments), with its event name. */
    private static String[] nextEvent(Iterator<String> lines) {
        String name = "message";
        String data = null;
        while (lines.hasNext()) {
            String line = lines.next();
            if (line.startsWith("event: ")) {
                name = line.substring(7);
            } else if (line.startsWith("data: ")) {
                data = line.substring(6);
            } else if (line.isEmpty() && data != null) {
                return new String[] {name, data};
            }
        }
        throw new AssertionError("the stream ended");
    }

    private String endpoint(Iterator<String> lines) {
        String[] event = nextEvent(lines);
        assertThat(event[0]).isEqualTo("endpoint");
        assertThat(event[1]).startsWith("/messages?sessionId=");
        return event[1];
    }

    @Test
    void aSessionRunsOverTheStreamAndPostsAreAnswered202() throws Exception {
        HttpResponse<Stream<String>> stream = openStream();
        assertThat(stream.statusCode()).isEqualTo(200);
        assertThat(stream.headers().firstValue("content-type").orElse("")).startsWith("text/event-stream");
        Iterator<String> lines = stream.body().iterator();
        String messages = endpoint(lines);

        HttpResponse<String> init = post(messages, "application/json", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
                + "\"initialize\",\"params\":{\"protocolVersion\":\"2024-11-05\",\"capabilities\":{},"
                + "\"clientInfo\":{\"name\":\"old\",\"version\":\"1\"}}}");
        assertThat(init.statusCode()).isEqualTo(202);
        assertThat(init.headers().firstValue("mcp-session-id")).isEmpty();
        JsonNode initResult = Json.mapper().readTree(nextEvent(lines)[1]);
        assertThat(initResult.path("id").asInt()).isEqualTo(1);
        assertThat(initResult.path("result").path("protocolVersion").asString()).isEqualTo("2024-11-05");
        assertThat(initResult.path("result").path("serverInfo").path("name").asString()).isEqualTo("sse-test");

        assertThat(post(messages, "application/json",
                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}").statusCode()).isEqualTo(202);
        assertThat(post(messages, "application/json", "{\"jsonrpc\":\"2.0\",\"id\":\"c\",\"method\":\"tools/call\","
                + "\"params\":{\"name\":\"twice\",\"_meta\":{\"progressToken\":7}}}").statusCode()).isEqualTo(202);
        JsonNode progress = Json.mapper().readTree(nextEvent(lines)[1]);
        assertThat(progress.path("method").asString()).isEqualTo("notifications/progress");
        assertThat(progress.path("params").path("progressToken").asInt()).isEqualTo(7);
        JsonNode result = Json.mapper().readTree(nextEvent(lines)[1]);
        assertThat(result.path("id").asString()).isEqualTo("c");
        assertThat(result.path("result").path("content").get(0).path("text").asString()).isEqualTo("done twice");

        assertThat(post(messages, "application/json", "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"no/such\"}")
                .statusCode()).isEqualTo(202);
        JsonNode unknown = Json.mapper().readTree(nextEvent(lines)[1]);
        assertThat(unknown.path("error").path("code").asInt()).isEqualTo(-32601);
        stream.body().close();
    }

    @Test
    void badPostsGetSpecificErrors() throws Exception {
        HttpResponse<Stream<String>> stream = openStream();
        Iterator<String> lines = stream.body().iterator();
        String messages = endpoint(lines);

        HttpResponse<String> noSession = post("/messages", "application/json", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
        assertThat(noSession.statusCode()).isEqualTo(400);
        assertThat(Json.mapper().readTree(noSession.body()).path("error").path("code").asInt()).isEqualTo(-32600);

        HttpResponse<String> unknown = post("/messages?sessionId=nope", "application/json",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
        assertThat(unknown.statusCode()).isEqualTo(404);

        assertThat(post(messages, "text/plain", "{}").statusCode()).isEqualTo(415);

        HttpResponse<String> garbage = post(messages, "application/json", "{not json");
        assertThat(garbage.statusCode()).isEqualTo(400);
        assertThat(Json.mapper().readTree(garbage.body()).path("error").path("code").asInt()).isEqualTo(-32700);

        HttpResponse<String> batch = post(messages, "application/json", "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]");
        assertThat(batch.statusCode()).as("no batches before a 2025-03-26 initialize").isEqualTo(400);

        HttpResponse<String> getMessages = http.send(HttpRequest.newBuilder(URI.create(base() + messages)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(getMessages.statusCode()).isEqualTo(405);
        assertThat(getMessages.headers().firstValue("allow")).hasValue("POST");

        HttpResponse<String> notAcceptable = http.send(HttpRequest.newBuilder(URI.create(base() + "/sse"))
                .header("Accept", "application/json").GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(notAcceptable.statusCode()).isEqualTo(406);

        HttpResponse<String> badHost = http.send(HttpRequest.newBuilder(URI.create(base() + "/sse"))
                .header("Accept", "text/event-stream").header("Origin", "https://evil.example").GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(badHost.statusCode()).isEqualTo(403);

        // the session still works after all that
        assertThat(post(messages, "application/json", "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}").statusCode())
                .isEqualTo(202);
        assertThat(Json.mapper().readTree(nextEvent(lines)[1]).path("id").asInt()).isEqualTo(9);
        stream.body().close();
    }

    @Test
    void theSessionEndsWithItsStream() throws Exception {
        HttpResponse<Stream<String>> stream = openStream();
        String messages = endpoint(stream.body().iterator());
        assertThat(transport.legacySseConnections()).isEqualTo(1);
        stream.body().close();

        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (transport.legacySseConnections() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(transport.legacySseConnections()).isZero();
        assertThat(post(messages, "application/json", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}").statusCode())
                .isEqualTo(404);
    }

    @Test
    void canBeSwitchedOff() throws Exception {
        try (HttpServerTransport only = HttpServerTransport.builder(server).port(0)
                .sse(s -> s.noLegacy()).build().start()) {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(only.url().replace("/mcp", "/sse")))
                    .header("Accept", "text/event-stream").GET().build(), HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).isEqualTo(404);
        }
    }
}
