package dev.tern.transport.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Iterator;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.tern.protocol.Json;
import dev.tern.server.McpServer;

import tools.jackson.databind.JsonNode;

/**
 * SECURITY row 34: a valid session id replayed on behalf of another principal finds nothing (404, as for an unknown
 * id), on every method of both HTTP transports, and the session stays usable by its owner.
 */
class SessionPrincipalTest {
    private static final String PING = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}";

    private McpServer server;
    private HttpServerTransport transport;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeEach
    void start() throws InterruptedException {
        server = McpServer.builder().info("principals", "1.0.0").build();
        transport = HttpServerTransport.builder(server).port(0)
                .sessions(s -> s.principals(headers -> {
                    String auth = headers.get("authorization");
                    return auth != null && auth.startsWith("Bearer ") ? auth.substring(7) : null;
                }))
                .build().start();
    }

    @AfterEach
    void stop() {
        transport.close();
        server.close();
    }

    private static Map<String, String> as(String user, String session) {
        java.util.LinkedHashMap<String, String> h = new java.util.LinkedHashMap<>();
        h.put("Mcp-Session-Id", session);
        h.put("MCP-Protocol-Version", Mcp.LEGACY);
        if (user != null) {
            h.put("Authorization", "Bearer " + user);
        }
        return h;
    }

    private static int errorCode(Mcp.Reply reply) {
        return Json.mapper().readTree(reply.body()).path("error").path("code").asInt();
    }

    @Test
    void aStreamableHttpSessionServesOnlyItsOwner() {
        try (Mcp mcp = new Mcp(transport, HttpClient.Version.HTTP_1_1)) {
            Mcp.Reply init = mcp.post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                    + "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}",
                    Map.of("Authorization", "Bearer alice"));
            assertThat(init.status()).isEqualTo(200);
            String session = init.headers().firstValue("mcp-session-id").orElseThrow();
            assertThat(mcp.post("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", as("alice", session))
                    .status()).isEqualTo(202);

            for (String stranger : new String[] {"bob", null}) {
                Mcp.Reply replayed = mcp.post(PING, as(stranger, session));
                assertThat(replayed.status()).as("POST as %s", stranger).isEqualTo(404);
                assertThat(errorCode(replayed)).isEqualTo(-32600);
                Map<String, String> get = new java.util.LinkedHashMap<>(as(stranger, session));
                get.put("Accept", "text/event-stream");
                assertThat(mcp.get(mcp.uri, get).status()).as("GET as %s", stranger).isEqualTo(404);
                HttpRequest.Builder delete = HttpRequest.newBuilder(mcp.uri).DELETE().timeout(Duration.ofSeconds(10));
                as(stranger, session).forEach(delete::header);
                assertThat(mcp.send(delete.build()).status()).as("DELETE as %s", stranger).isEqualTo(404);
            }

            Mcp.Reply owner = mcp.post(PING, as("alice", session));
            assertThat(owner.status()).isEqualTo(200);
            assertThat(owner.messages().get(0).path("id").asInt()).isEqualTo(7);
        }
    }

    @Test
    void aStreamOfThe20241105TransportServesOnlyItsOwner() throws Exception {
        String base = transport.url().replace("/mcp", "");
        HttpResponse<Stream<String>> stream = http.send(HttpRequest.newBuilder(URI.create(base + "/sse"))
                .header("Accept", "text/event-stream").header("Authorization", "Bearer alice")
                .timeout(Duration.ofSeconds(20)).GET().build(), HttpResponse.BodyHandlers.ofLines());
        Iterator<String> lines = stream.body().iterator();
        String endpoint = null;
        while (endpoint == null && lines.hasNext()) {
            String line = lines.next();
            if (line.startsWith("data: ")) {
                endpoint = line.substring(6);
            }
        }
        assertThat(endpoint).startsWith("/messages?sessionId=");

        for (String stranger : new String[] {"bob", null}) {
            HttpRequest.Builder post = HttpRequest.newBuilder(URI.create(base + endpoint))
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(PING));
            if (stranger != null) {
                post.header("Authorization", "Bearer " + stranger);
            }
            assertThat(http.send(post.build(), HttpResponse.BodyHandlers.ofString()).statusCode())
                    .as("POST as %s", stranger).isEqualTo(404);
        }

        HttpResponse<String> owner = http.send(HttpRequest.newBuilder(URI.create(base + endpoint))
                .header("Content-Type", "application/json").header("Authorization", "Bearer alice")
                .POST(HttpRequest.BodyPublishers.ofString(PING)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(owner.statusCode()).isEqualTo(202);
        JsonNode answer = null;
        while (answer == null && lines.hasNext()) {
            String line = lines.next();
            if (line.startsWith("data: {")) {
                answer = Json.mapper().readTree(line.substring(6));
            }
        }
        assertThat(answer.path("id").asInt()).as("the ping answered on alice's stream, and only hers").isEqualTo(7);
        stream.body().close();
    }
}
