package dev.tern.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.tern.protocol.Json;

import tools.jackson.databind.JsonNode;

class HttpFloorTest {
    private static final String CALL = """
            {"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"%s","arguments":{"id":"%s"},
             "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}""";
    private static HttpFloor floor;
    private static final HttpClient client = HttpClient.newHttpClient();

    @BeforeAll
    static void start() throws InterruptedException {
        floor = HttpFloor.start("127.0.0.1", 0);
    }

    @AfterAll
    static void stop() {
        floor.close();
    }

    private static HttpResponse<String> get(String path) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + floor.port() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode post(String body) throws Exception {
        HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + floor.port() + "/mcp"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("content-type")).hasValue("application/json");
        return Json.mapper().readTree(response.body());
    }

    @Test
    void theToolCallAnswersTheRestRecordAsTextAndStructuredContent() throws Exception {
        HttpResponse<String> rest = get("/users/42");
        assertThat(rest.statusCode()).isEqualTo(200);
        JsonNode record = Json.mapper().readTree(rest.body());
        assertThat(record.path("id").asString()).isEqualTo("42");

        JsonNode reply = post(CALL.formatted("\"a-1\"", "get_user", "42"));
        assertThat(reply.path("id").asString()).isEqualTo("a-1");
        JsonNode result = reply.path("result");
        assertThat(result.path("resultType").asString()).isEqualTo("complete");
        assertThat(result.path("structuredContent")).isEqualTo(record);
        assertThat(result.path("content").get(0).path("type").asString()).isEqualTo("text");
        assertThat(Json.mapper().readTree(result.path("content").get(0).path("text").asString())).isEqualTo(record);
    }

    @Test
    void anythingElseGetsAJsonRpcErrorOrA404() throws Exception {
        assertThat(post(CALL.formatted("7", "search_users", "42")).path("error").path("code").asInt()).isEqualTo(-32601);
        assertThat(post(CALL.formatted("8", "get_user", "no-such-user")).path("error").path("code").asInt()).isEqualTo(-32602);
        JsonNode parseError = post("{not json");
        assertThat(parseError.path("error").path("code").asInt()).isEqualTo(-32700);
        assertThat(parseError.get("id").isNull()).isTrue();
        assertThat(get("/users/no-such-user").statusCode()).isEqualTo(404);
        assertThat(get("/elsewhere").statusCode()).isEqualTo(404);
    }
}
