package dev.tern.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import dev.tern.protocol.Json;

import tools.jackson.databind.JsonNode;

/**
 * A test's HTTP client of Tern nodes in both eras: 2025-11-25 sessions, 2026-07-28 requests and SSE streams read as
 * they come. Closing it closes the streams it opened.
 */
final class McpHttp implements AutoCloseable {
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final List<Stream<String>> open = new CopyOnWriteArrayList<>();

    HttpClient client() {
        return http;
    }

    /** A POST to {@code node}, in {@code session} unless it is null. */
    HttpRequest.Builder post(TernNode node, String session, String body) {
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(node.url()))
                .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofString(body)).timeout(Duration.ofSeconds(20));
        if (session != null) {
            r.header("Mcp-Session-Id", session).header("MCP-Protocol-Version", "2025-11-25");
        }
        return r;
    }

    HttpResponse<String> call(TernNode node, String session, String body) throws Exception {
        return http.send(post(node, session, body).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Opens a 2025-11-25 session on {@code node}, initialized, and gives its id. */
    String initialize(TernNode node) throws Exception {
        HttpResponse<String> init = call(node, null, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
                + "\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                + "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}");
        assertThat(init.statusCode()).as(init.body()).isEqualTo(200);
        String session = init.headers().firstValue("mcp-session-id").orElseThrow();
        assertThat(call(node, session, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}").statusCode())
                .isEqualTo(202);
        return session;
    }

    /** A 2026-07-28 request (with {@code name} in {@code Mcp-Name} unless null), answered 200; its JSON reply. */
    JsonNode modern(TernNode node, String method, String name, String capabilities, String params) throws Exception {
        HttpRequest.Builder r = modernRequest(node, method, capabilities, params);
        if (name != null) {
            r.header("Mcp-Name", name);
        }
        HttpResponse<String> response = http.send(r.build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return Json.mapper().readTree(response.body());
    }

    /** A 2026-07-28 request of {@code method} whose client has {@code capabilities}, with the other params given. */
    static HttpRequest.Builder modernRequest(TernNode node, String method, String capabilities, String params) {
        String body = "{\"jsonrpc\":\"2.0\",\"id\":\"m1\",\"method\":\"" + method + "\",\"params\":{\"_meta\":{"
                + "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                + "\"io.modelcontextprotocol/clientCapabilities\":" + capabilities + ","
                + "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}," + params + "}}";
        return HttpRequest.newBuilder(URI.create(node.url())).header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream").header("MCP-Protocol-Version", "2026-07-28")
                .header("Mcp-Method", method).timeout(Duration.ofSeconds(20))
                .POST(HttpRequest.BodyPublishers.ofString(body));
    }

    /** A 2026-07-28 listen on {@code node} for the given notifications, acknowledged; its later messages. */
    BlockingQueue<JsonNode> listen(TernNode node, String notifications) throws Exception {
        BlockingQueue<JsonNode> messages = sse(modernRequest(node, "subscriptions/listen", "{}",
                "\"notifications\":" + notifications).timeout(Duration.ofSeconds(120)));
        assertThat(next(messages).path("method").asString()).isEqualTo("notifications/subscriptions/acknowledged");
        return messages;
    }

    /** Opens an SSE stream and hands its messages to the returned queue as they come. */
    BlockingQueue<JsonNode> sse(HttpRequest.Builder request) throws Exception {
        HttpResponse<Stream<String>> response = http.send(request.build(), HttpResponse.BodyHandlers.ofLines());
        assertThat(response.statusCode()).isEqualTo(200);
        Stream<String> lines = response.body();
        open.add(lines);
        BlockingQueue<JsonNode> messages = new LinkedBlockingQueue<>();
        Thread.startVirtualThread(() -> {
            try {
                lines.filter(l -> l.startsWith("data: ") && l.length() > 6)
                        .forEach(l -> messages.add(Json.mapper().readTree(l.substring(6))));
            } catch (RuntimeException closed) {
                // the test is over
            }
        });
        return messages;
    }

    /** Keeps a streamed response to be closed with this client. */
    HttpResponse<Stream<String>> keep(HttpResponse<Stream<String>> response) {
        open.add(response.body());
        return response;
    }

    static JsonNode next(BlockingQueue<JsonNode> stream) throws InterruptedException {
        JsonNode m = stream.poll(10, TimeUnit.SECONDS);
        assertThat(m).as("a message within 10 s").isNotNull();
        return m;
    }

    @Override
    public void close() {
        open.forEach(Stream::close);
    }

    /** The lines of an SSE stream up to and including the first that contains {@code marker}. */
    static List<String> readUntil(Iterator<String> lines, String marker) {
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

    /** The id of the last event among {@code lines}, or {@code null}. */
    static String lastId(List<String> lines) {
        String id = null;
        for (String l : lines) {
            if (l.startsWith("id: ")) {
                id = l.substring(4);
            }
        }
        return id;
    }
}
