package dev.tern.it;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.tern.protocol.Json;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code tern serve} (user-directory) answers over MCP, the REST façade and the plain-REST baseline on one port, and
 * they agree: {@code GET /users/{id}} is {@code get_user}'s structured content, {@code /openapi.json} lists what
 * {@code tools/list} lists.
 */
class RestFacadeProcessTest {
    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private static TernProcess tern;
    private static URI base;

    @BeforeAll
    static void start() throws Exception {
        tern = TernProcess.http("user-directory");
        base = URI.create(tern.url()).resolve("/");
    }

    @AfterAll
    static void stop() throws Exception {
        if (tern != null) {
            String stderr = tern.stderr();
            tern.close();
            JavaSdkClientHttpTest.assertNoServerErrors(stderr);
        }
    }

    record Reply(int status, String contentType, String body) {
        JsonNode json() {
            return Json.mapper().readTree(body);
        }
    }

    static Reply send(HttpRequest.Builder request) throws IOException, InterruptedException {
        HttpResponse<String> r = CLIENT.send(request.timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
        return new Reply(r.statusCode(), r.headers().firstValue("content-type").orElse(""), r.body());
    }

    static Reply get(String path) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(base.resolve(path)).GET());
    }

    static Reply post(String path, String body) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(base.resolve(path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    /** A stateless 2026-07-28 MCP request. */
    static JsonNode mcp(String method, String name, String params) throws IOException, InterruptedException {
        String meta = "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                + "\"io.modelcontextprotocol/clientCapabilities\":{}}";
        String body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"" + method + "\",\"params\":{"
                + (params.isEmpty() ? "" : params + ",") + meta + "}}";
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(tern.url()))
                .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
                .header("MCP-Protocol-Version", "2026-07-28").header("Mcp-Method", method)
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (name != null) {
            request.header("Mcp-Name", name);
        }
        Reply reply = send(request);
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        return reply.json().path("result");
    }

    @Test
    void theBaselineRouteAnswersWhatGetUserAnswers() throws Exception {
        Reply route = get("/users/42");
        assertThat(route.status()).isEqualTo(200);
        assertThat(route.contentType()).isEqualTo("application/json");
        JsonNode viaMcp = mcp("tools/call", "get_user", "\"name\":\"get_user\",\"arguments\":{\"id\":\"42\"}");
        assertThat(route.json()).isEqualTo(viaMcp.path("structuredContent"));
        assertThat(route.json().path("id").asString()).isEqualTo("42");

        Reply facade = post("/rest/tools/get_user", "{\"id\":\"42\"}");
        assertThat(facade.status()).isEqualTo(200);
        assertThat(facade.json()).isEqualTo(route.json());
    }

    @Test
    void anUnknownUserIs404OnTheRouteAnd422OnTheFacade() throws Exception {
        Reply route = get("/users/100000");
        assertThat(route.status()).isEqualTo(404);
        assertThat(route.contentType()).isEqualTo("application/problem+json");
        Reply facade = post("/rest/tools/get_user", "{\"id\":\"100000\"}");
        assertThat(facade.status()).isEqualTo(422);
        assertThat(facade.json().path("detail").asString()).isEqualTo("No user with id 100000");
        assertThat(post("/rest/tools/get_user", "{\"id\":42}").status()).isEqualTo(422);
        assertThat(post("/rest/tools/get_users", "{}").status()).isEqualTo(404);
    }

    @Test
    void theOpenApiDocumentListsWhatToolsListLists() throws Exception {
        Reply doc = get("/openapi.json");
        assertThat(doc.status()).isEqualTo(200);
        JsonNode document = doc.json();
        assertThat(document.path("openapi").asString()).isEqualTo("3.1.0");
        JsonNode tools = mcp("tools/list", null, "").path("tools");
        List<String> listed = new ArrayList<>();
        for (JsonNode tool : tools) {
            listed.add("/rest/tools/" + tool.path("name").asString());
            JsonNode op = document.path("paths").path("/rest/tools/" + tool.path("name").asString()).path("post");
            assertThat(op.path("requestBody").path("content").path("application/json").path("schema"))
                    .isEqualTo(tool.path("inputSchema"));
            assertThat(op.path("responses").path("200").path("content").path("application/json").path("schema"))
                    .isEqualTo(tool.path("outputSchema"));
        }
        List<String> documented = new ArrayList<>();
        document.path("paths").propertyNames().forEach(p -> {
            if (p.startsWith("/rest/tools/")) {
                documented.add(p);
            }
        });
        assertThat(documented).containsExactlyInAnyOrderElementsOf(listed);
        assertThat(document.path("paths").path("/users/{id}").path("get").path("description").asString())
                .contains("get_user");
    }

    @Test
    void resourcesAreReadOverRest() throws Exception {
        Reply user = get("/rest/resources?uri=user://7");
        assertThat(user.status()).isEqualTo(200);
        assertThat(user.contentType()).isEqualTo("application/json");
        assertThat(user.json()).isEqualTo(get("/users/7").json());
        assertThat(get("/rest/resources?uri=user://0").status()).isEqualTo(404);
    }

    @Test
    void aForeignHostIsRefusedOnEveryRoute() throws Exception {
        int port = URI.create(tern.url()).getPort();
        for (String target : List.of("/users/1", "/openapi.json", "/rest/resources?uri=user://1")) {
            try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
                socket.setSoTimeout(20_000);
                OutputStream out = socket.getOutputStream();
                out.write(("GET " + target + " HTTP/1.1\r\nHost: rebound.example\r\nConnection: close\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                out.flush();
                InputStream in = socket.getInputStream();
                String head = new String(in.readNBytes(12), StandardCharsets.US_ASCII);
                assertThat(head).as(target).isEqualTo("HTTP/1.1 403");
            }
        }
    }

    @Test
    void withoutRestOnlyMcpIsServed() throws Exception {
        try (TernProcess mcpOnly = TernProcess.http("user-directory", "--no-rest")) {
            URI other = URI.create(mcpOnly.url()).resolve("/");
            for (String path : List.of("/users/1", "/openapi.json", "/rest/resources?uri=user://1")) {
                Reply r = send(HttpRequest.newBuilder(other.resolve(path)).GET());
                assertThat(r.status()).as(path).isEqualTo(404);
            }
        }
    }
}
