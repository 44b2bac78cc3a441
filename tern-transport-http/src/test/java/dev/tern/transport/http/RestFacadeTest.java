package dev.tern.transport.http;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;

import dev.tern.protocol.Json;
import dev.tern.protocol.model.ReadResourceResult;
import dev.tern.protocol.model.ResourceContents;
import dev.tern.server.McpServer;
import dev.tern.server.ResourceSpec;
import dev.tern.server.ResourceTemplateSpec;
import dev.tern.server.ToolException;
import dev.tern.server.ToolSpec;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/** The REST façade and plain routes against a real server on an ephemeral port. */
class RestFacadeTest {
    record Id(String id) {
    }

    record Person(String id, String name, int age) {
    }

    static final Map<String, Person> PEOPLE = Map.of("1", new Person("1", "Ada", 36), "2", new Person("2", "Alan", 41));

    private McpServer server;
    private HttpServerTransport transport;
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    static McpServer server() {
        return McpServer.builder()
                .info("people", "2.0.0")
                .tool(ToolSpec.builder("get_person").description("One person by id.")
                        .handler(Id.class, (ctx, id) -> Optional.ofNullable(PEOPLE.get(id.id()))
                                .orElseThrow(() -> new ToolException("No person with id " + id.id())))
                        .output(Person.class)
                        .build())
                .tool(ToolSpec.builder("shout").description("Upper-cases its text; no output schema.")
                        .inputSchema(Json.mapper().readValue("""
                                {"type":"object","properties":{"text":{"type":"string","minLength":1}},"required":["text"]}""",
                                tools.jackson.databind.node.ObjectNode.class))
                        .handler((ctx, args) -> dev.tern.protocol.model.CallToolResult.text(
                                args.path("text").asString().toUpperCase(java.util.Locale.ROOT)))
                        .build())
                .tool(ToolSpec.builder("confirm").description("Asks the user before answering.")
                        .handler((ctx, args) -> {
                            ctx.elicit("Sure?", Json.object());
                            return dev.tern.protocol.model.CallToolResult.text("confirmed");
                        })
                        .build())
                .tool(ToolSpec.builder("broken").description("Fails inside.")
                        .handler((ctx, args) -> {
                            throw new IllegalStateException("bug");
                        })
                        .build())
                .resource(ResourceSpec.builder("test://notes", "notes").mimeType("text/plain")
                        .handler((ctx, uri, vars) -> ReadResourceResult.of(ResourceContents.text(uri, "text/plain", "héllo")))
                        .build())
                .resource(ResourceSpec.builder("test://logo", "logo").mimeType("image/png")
                        .handler((ctx, uri, vars) -> ReadResourceResult.of(ResourceContents.blob(uri, "image/png",
                                Base64.getEncoder().encodeToString(new byte[] {(byte) 0x89, 'P', 'N', 'G'}))))
                        .build())
                .resourceTemplate(ResourceTemplateSpec.builder("person://{id}", "person").mimeType("application/json")
                        .handler((ctx, uri, vars) -> {
                            Person p = PEOPLE.get(vars.get("id"));
                            return p == null ? null : ReadResourceResult.of(ResourceContents.text(uri, "application/json",
                                    Json.mapper().writeValueAsString(p)));
                        })
                        .build())
                .build();
    }

    @BeforeEach
    void start() throws InterruptedException {
        server = server();
        transport = HttpServerTransport.builder(server).port(0).restFacade(true).allowOrigin("https://app.example")
                .route("GET", "/people/{id}", "One person by id, as plain REST.", request -> {
                    Person p = PEOPLE.get(request.pathVariable("id"));
                    return p == null ? RouteResponse.notFound("No person with id " + request.pathVariable("id"))
                            : RouteResponse.json(p);
                })
                .route("POST", "/echo", request -> RouteResponse.of(201, "application/json", request.body()))
                .route("PUT", "/echo", request -> RouteResponse.of(200, "application/json", request.body()))
                .route("PATCH", "/echo", request -> RouteResponse.of(200, "application/json", request.body()))
                .route("POST", "/{a}/tools/{c}", request -> RouteResponse.json(request.pathVariables()))
                .route("GET", "/boom", request -> {
                    throw new IOException("disk on fire");
                })
                .build().start();
    }

    @AfterEach
    void stop() {
        transport.close();
        server.close();
    }

    record Reply(int status, String contentType, byte[] bytes) {
        String body() {
            return new String(bytes, StandardCharsets.UTF_8);
        }

        JsonNode json() {
            return Json.mapper().readTree(bytes);
        }
    }

    Reply post(String path, String body) {
        return send(HttpRequest.newBuilder(url(path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    Reply get(String path) {
        return send(HttpRequest.newBuilder(url(path)).GET());
    }

    URI url(String path) {
        return URI.create("http://127.0.0.1:" + transport.port() + path);
    }

    Reply send(HttpRequest.Builder request) {
        try {
            HttpResponse<byte[]> r = client.send(request.timeout(Duration.ofSeconds(20)).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            return new Reply(r.statusCode(), r.headers().firstValue("content-type").orElse(""), r.body());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aToolAnswersItsStructuredContent() {
        Reply r = post("/rest/tools/get_person", "{\"id\":\"1\"}");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.contentType()).isEqualTo("application/json");
        assertThat(r.json()).isEqualTo(Json.mapper().valueToTree(PEOPLE.get("1")));
        assertThat(r.body()).as("the value as it was serialized").isEqualTo(Json.mapper().writeValueAsString(PEOPLE.get("1")));
    }

    @Test
    void aToolWithoutOutputSchemaAnswersItsContent() {
        Reply r = post("/rest/tools/shout", "{\"text\":\"hey\"}");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.json().isArray()).isTrue();
        assertThat(r.json().get(0).path("type").asString()).isEqualTo("text");
        assertThat(r.json().get(0).path("text").asString()).isEqualTo("HEY");
    }

    @Test
    void anUnknownToolIs404() {
        Reply r = post("/rest/tools/nope", "{}");
        assertThat(r.status()).isEqualTo(404);
        assertThat(r.contentType()).isEqualTo("application/problem+json");
        assertThat(r.json().path("type").asString()).isEqualTo(RestFacade.UNKNOWN_TOOL);
        assertThat(r.json().path("status").asInt()).isEqualTo(404);
    }

    @Test
    void argumentsThatBreakTheSchemaAre422WithEachViolation() {
        Reply r = post("/rest/tools/shout", "{\"text\":\"\",\"extra\":1}");
        assertThat(r.status()).isEqualTo(422);
        assertThat(r.contentType()).isEqualTo("application/problem+json");
        assertThat(r.json().path("type").asString()).isEqualTo(RestFacade.INVALID_ARGUMENTS);
        assertThat(r.json().path("errors").size()).isGreaterThanOrEqualTo(1);
        assertThat(r.json().path("errors").toString()).contains("text");

        Reply missing = post("/rest/tools/get_person", "{}");
        assertThat(missing.status()).isEqualTo(422);
        assertThat(missing.json().path("errors").toString()).contains("id");
    }

    @Test
    void aBodyThatIsNotAJsonObjectIs400() {
        for (String body : new String[] {"{\"id\":", "[1,2]", "\"id\"", "{\"id\":\"1\",\"id\":\"2\"}", "{} {}"}) {
            Reply r = post("/rest/tools/get_person", body);
            assertThat(r.status()).as(body).isEqualTo(400);
            assertThat(r.contentType()).isEqualTo("application/problem+json");
            assertThat(r.json().path("type").asString()).isEqualTo(RestFacade.INVALID_BODY);
        }
    }

    @Test
    void aToolErrorIs422WithTheToolsMessage() {
        Reply r = post("/rest/tools/get_person", "{\"id\":\"99\"}");
        assertThat(r.status()).isEqualTo(422);
        assertThat(r.json().path("type").asString()).isEqualTo(RestFacade.TOOL_ERROR);
        assertThat(r.json().path("detail").asString()).isEqualTo("No person with id 99");
        assertThat(r.json().path("content").get(0).path("text").asString()).isEqualTo("No person with id 99");

        Reply broken = post("/rest/tools/broken", "{}");
        assertThat(broken.status()).isEqualTo(422);
        assertThat(broken.json().path("detail").asString()).doesNotContain("bug");
    }

    @Test
    void aToolThatNeedsTheClientIs501() {
        Reply r = post("/rest/tools/confirm", "{}");
        assertThat(r.status()).isEqualTo(501);
        assertThat(r.json().path("type").asString()).isEqualTo(RestFacade.NEEDS_CLIENT);
        assertThat(r.json().path("detail").asString()).contains("elicitation");
    }

    @Test
    void bodiesFollowTheRulesOfTheMcpEndpoint() {
        Reply wrongType = send(HttpRequest.newBuilder(url("/rest/tools/get_person")).header("Content-Type", "text/plain")
                .POST(HttpRequest.BodyPublishers.ofString("{\"id\":\"1\"}")));
        assertThat(wrongType.status()).isEqualTo(415);
        Reply tooBig = post("/rest/tools/get_person", "{\"id\":\"" + "x".repeat(5 * 1024 * 1024) + "\"}");
        assertThat(tooBig.status()).isEqualTo(413);
        Reply getOnPost = get("/rest/tools/get_person");
        assertThat(getOnPost.status()).isEqualTo(405);
        Reply empty = post("/rest/tools/confirm", "");
        assertThat(empty.status()).as("an empty body is no arguments").isEqualTo(501);
    }

    @Test
    void resourcesAnswerTheirContentsInTheirOwnMediaType() {
        Reply text = get("/rest/resources?uri=test://notes");
        assertThat(text.status()).isEqualTo(200);
        assertThat(text.contentType()).isEqualTo("text/plain; charset=utf-8");
        assertThat(text.body()).isEqualTo("héllo");

        Reply blob = get("/rest/resources?uri=" + java.net.URLEncoder.encode("test://logo", StandardCharsets.UTF_8));
        assertThat(blob.status()).isEqualTo(200);
        assertThat(blob.contentType()).isEqualTo("image/png");
        assertThat(blob.bytes()).containsExactly((byte) 0x89, 'P', 'N', 'G');

        Reply templated = get("/rest/resources?uri=person://2");
        assertThat(templated.status()).isEqualTo(200);
        assertThat(templated.contentType()).isEqualTo("application/json");
        assertThat(templated.json()).isEqualTo(Json.mapper().valueToTree(PEOPLE.get("2")));

        assertThat(get("/rest/resources?uri=person://3").status()).isEqualTo(404);
        assertThat(get("/rest/resources?uri=nothing://here").status()).isEqualTo(404);
        assertThat(get("/rest/resources").status()).isEqualTo(400);
    }

    @Test
    void plainRoutesServeWithPathVariablesAndProblems() {
        Reply found = get("/people/2");
        assertThat(found.status()).isEqualTo(200);
        assertThat(found.json()).isEqualTo(Json.mapper().valueToTree(PEOPLE.get("2")));
        Reply missing = get("/people/7");
        assertThat(missing.status()).isEqualTo(404);
        assertThat(missing.contentType()).isEqualTo("application/problem+json");
        assertThat(get("/people").status()).isEqualTo(404);
        assertThat(get("/people/2/more").status()).isEqualTo(404);

        Reply echoed = post("/echo", "{\"a\":1}");
        assertThat(echoed.status()).isEqualTo(201);
        assertThat(echoed.body()).isEqualTo("{\"a\":1}");

        Reply templated = post("/x/tools/z", "{}");
        assertThat(templated.json().path("c").asString()).isEqualTo("z");
        Reply notShadowed = post("/rest/tools/shout", "{\"text\":\"a\"}");
        assertThat(notShadowed.json().get(0).path("text").asString()).as("the façade is not shadowed").isEqualTo("A");

        Reply failed = get("/boom");
        assertThat(failed.status()).isEqualTo(500);
        assertThat(failed.body()).doesNotContain("fire");
    }

    @Test
    void putAndPatchRoutesReceiveTheirBodies() {
        for (String method : new String[] {"PUT", "PATCH"}) {
            Reply echoed = send(HttpRequest.newBuilder(url("/echo")).header("Content-Type", "application/json")
                    .method(method, HttpRequest.BodyPublishers.ofString("{\"m\":\"" + method + "\"}")));
            assertThat(echoed.status()).as(method).isEqualTo(200);
            assertThat(echoed.body()).as(method).isEqualTo("{\"m\":\"" + method + "\"}");
        }
    }

    @Test
    void theRouteAnswersWhatTheToolAnswers() {
        assertThat(get("/people/1").json()).isEqualTo(post("/rest/tools/get_person", "{\"id\":\"1\"}").json());
    }

    @Test
    void hostAndOriginChecksApplyToEveryRoute() throws IOException {
        for (String request : new String[] {
            "GET /people/1 HTTP/1.1\r\nHost: evil.example\r\n\r\n",
            "GET /openapi.json HTTP/1.1\r\nHost: evil.example:8080\r\n\r\n",
            "GET /rest/resources?uri=test://notes HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: https://evil.example\r\n\r\n",
            "POST /rest/tools/get_person HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: https://evil.example\r\n"
                    + "Content-Type: application/json\r\nContent-Length: 10\r\n\r\n{\"id\":\"1\"}"}) {
            try (RawHttp raw = new RawHttp(transport.port())) {
                RawHttp.Response r = raw.send(request).read();
                assertThat(r.status()).as(request).isEqualTo(403);
            }
        }
        try (RawHttp raw = new RawHttp(transport.port())) {
            RawHttp.Response r = raw.send("GET /people/1 HTTP/1.1\r\nHost: localhost\r\nOrigin: https://app.example\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.headers().get("access-control-allow-origin")).isEqualTo("https://app.example");
        }
    }

    @Test
    void routesServeOverHttp2Too() {
        HttpClient h2 = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build();
        try {
            HttpResponse<String> first = h2.send(HttpRequest.newBuilder(url("/people/1")).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            HttpResponse<String> call = h2.send(HttpRequest.newBuilder(url("/rest/tools/get_person"))
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{\"id\":\"1\"}"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(first.statusCode()).isEqualTo(200);
            assertThat(call.statusCode()).isEqualTo(200);
            assertThat(call.version()).isEqualTo(HttpClient.Version.HTTP_2);
            assertThat(Json.mapper().readTree(call.body())).isEqualTo(Json.mapper().readTree(first.body()));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Test
    void theFacadeIsOffUnlessAskedFor() throws InterruptedException {
        McpServer other = server();
        HttpServerTransport plain = HttpServerTransport.builder(other).port(0)
                .route("GET", "/people/{id}", request -> RouteResponse.json(PEOPLE.get("1"))).build().start();
        try {
            HttpResponse<String> tool = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + plain.port()
                    + "/rest/tools/get_person")).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"id\":\"1\"}")).build(), HttpResponse.BodyHandlers.ofString());
            HttpResponse<String> doc = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + plain.port()
                    + "/openapi.json")).build(), HttpResponse.BodyHandlers.ofString());
            HttpResponse<String> route = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + plain.port()
                    + "/people/1")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(tool.statusCode()).isEqualTo(404);
            assertThat(doc.statusCode()).isEqualTo(404);
            assertThat(route.statusCode()).isEqualTo(200);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } finally {
            plain.close();
            other.close();
        }
    }

    @Test
    void shuttingDownWaitsForRoutesInFlightAndRefusesNewOnes() throws Exception {
        java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        McpServer other = server();
        HttpServerTransport draining = HttpServerTransport.builder(other).port(0).shutdownTimeout(Duration.ofSeconds(20))
                .route("GET", "/slow", request -> {
                    started.countDown();
                    release.await(20, java.util.concurrent.TimeUnit.SECONDS);
                    return RouteResponse.json(Map.of("done", true));
                })
                .route("GET", "/fast", request -> RouteResponse.json(Map.of("fast", true)))
                .build().start();
        int port = draining.port();
        try (RawHttp slow = new RawHttp(port); RawHttp keepAlive = new RawHttp(port)) {
            keepAlive.send("GET /fast HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
            assertThat(keepAlive.read().status()).isEqualTo(200);
            slow.send("GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
            assertThat(started.await(20, java.util.concurrent.TimeUnit.SECONDS)).isTrue();

            java.util.concurrent.CompletableFuture<Void> closing = java.util.concurrent.CompletableFuture.runAsync(draining::close);
            DirectoryFixture.await("draining", draining::draining);
            keepAlive.send("GET /fast HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
            assertThat(keepAlive.read().status()).isEqualTo(503);
            assertThat(closing).isNotDone();

            release.countDown();
            RawHttp.Response finished = slow.read();
            assertThat(finished.status()).isEqualTo(200);
            assertThat(finished.body()).contains("done");
            closing.get(20, java.util.concurrent.TimeUnit.SECONDS);
        } finally {
            release.countDown();
            draining.close();
            other.close();
        }
    }
}
