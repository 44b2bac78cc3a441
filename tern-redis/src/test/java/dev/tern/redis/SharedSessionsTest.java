package dev.tern.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.tern.protocol.model.CallToolResult;
import dev.tern.protocol.model.LoggingLevel;
import dev.tern.server.ToolSpec;
import dev.tern.testing.RedisServer;

/** Two nodes sharing one Redis: any node serves any legacy session, and a lost stream resumes on the other node. */
class SharedSessionsTest {
    private static RedisServer redisServer;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final CountDownLatch release = new CountDownLatch(1);
    private TernNode a;
    private TernNode b;

    @BeforeAll
    static void startRedis() {
        redisServer = RedisServer.start();
    }

    @AfterAll
    static void stopRedis() {
        if (redisServer != null) {
            redisServer.close();
        }
    }

    @BeforeEach
    void startNodes() throws InterruptedException {
        a = node();
        b = node();
    }

    @AfterEach
    void stopNodes() {
        release.countDown();
        if (a != null) {
            a.close();
        }
        if (b != null) {
            b.close();
        }
    }

    private TernNode node() throws InterruptedException {
        return TernNode.start(redisServer.uri(), false, (server, redis) -> server.taskStore(new RedisTaskStore(redis))
                .tool(ToolSpec.builder("later").description("Answers as a task when asked to.")
                        .taskSupport(dev.tern.server.TaskSupport.OPTIONAL)
                        .handler((ctx, args) -> CallToolResult.text("done later")).build())
                .tool(ToolSpec.builder("steps").description("Progress, a pause, more progress, then the result.")
                        .handler((ctx, args) -> {
                            ctx.progress(1, 3.0, "one");
                            release.await(10, TimeUnit.SECONDS);
                            ctx.progress(2, 3.0, "two");
                            ctx.progress(3, 3.0, "three");
                            return CallToolResult.text("all steps done");
                        }).build())
                .tool(ToolSpec.builder("echo").description("Says what it was given.")
                        .inputSchema((tools.jackson.databind.node.ObjectNode) dev.tern.protocol.Json.mapper().readTree(
                                "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}}}"))
                        .handler((ctx, args) -> CallToolResult.text("echo " + args.path("text").asString()))
                        .build())
                .tool(ToolSpec.builder("note").description("Logs a note at info and one at error.")
                        .handler((ctx, args) -> {
                            ctx.log(LoggingLevel.INFO, "an info note");
                            ctx.log(LoggingLevel.ERROR, "an error note");
                            return CallToolResult.text("noted");
                        }).build()));
    }

    private HttpRequest.Builder post(TernNode node, String session, String body) {
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(node.transport().url()))
                .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofString(body)).timeout(Duration.ofSeconds(20));
        if (session != null) {
            r.header("Mcp-Session-Id", session).header("MCP-Protocol-Version", "2025-11-25");
        }
        return r;
    }

    private HttpResponse<String> call(TernNode node, String session, String body) throws Exception {
        return http.send(post(node, session, body).build(), HttpResponse.BodyHandlers.ofString());
    }

    private String initialize(TernNode node) throws Exception {
        HttpResponse<String> init = call(node, null, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
                + "\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"elicitation\":{}},"
                + "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}");
        assertThat(init.statusCode()).isEqualTo(200);
        String session = init.headers().firstValue("mcp-session-id").orElseThrow();
        assertThat(call(node, session, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}").statusCode())
                .isEqualTo(202);
        return session;
    }

    @Test
    void aSessionOpenedOnOneNodeIsServedByTheOther() throws Exception {
        String session = initialize(a);

        HttpResponse<String> onB = call(b, session, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\","
                + "\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"}}}");
        HttpResponse<String> backOnA = call(a, session, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}");

        assertThat(onB.statusCode()).isEqualTo(200);
        assertThat(onB.body()).contains("echo hi");
        assertThat(backOnA.statusCode()).isEqualTo(200);
        assertThat(backOnA.body()).contains("\"steps\"", "\"echo\"");
        assertThat(call(b, session, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"initialize\",\"params\":"
                + "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{}}}").body())
                .as("the session taken up on B is initialized already").contains("\"error\"");
    }

    @Test
    void aSessionDeletedOnOneNodeIsGoneOnTheOther() throws Exception {
        String session = initialize(a);
        assertThat(call(b, session, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}").statusCode()).isEqualTo(200);

        HttpResponse<String> deleted = http.send(HttpRequest.newBuilder(URI.create(b.transport().url())).DELETE()
                .header("Mcp-Session-Id", session).header("MCP-Protocol-Version", "2025-11-25").build(),
                HttpResponse.BodyHandlers.ofString());

        assertThat(deleted.statusCode()).isEqualTo(200);
        assertThat(call(a, session, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}").statusCode()).isEqualTo(404);
        assertThat(call(b, session, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}").statusCode()).isEqualTo(404);
    }

    @Test
    void aTaskStartedInASessionThroughOneNodeIsTheSessionsOwnThroughTheOther() throws Exception {
        String session = initialize(a);
        String other = initialize(b);
        HttpResponse<String> created = call(a, session, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\","
                + "\"params\":{\"name\":\"later\",\"arguments\":{},\"task\":{\"ttl\":60000}}}");
        assertThat(created.statusCode()).isEqualTo(200);
        String taskId = dev.tern.protocol.Json.mapper().readTree(created.body()).at("/result/task/taskId").asString("");
        assertThat(taskId).as(created.body()).isNotEmpty();
        String get = "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tasks/get\",\"params\":{\"taskId\":\"" + taskId + "\"}}";

        HttpResponse<String> onB = call(b, session, get);
        HttpResponse<String> anotherSession = call(b, other, get);

        assertThat(onB.body()).as("the session's task, through the other node").contains("\"taskId\":\"" + taskId + "\"")
                .doesNotContain("\"error\"");
        assertThat(anotherSession.body()).as("another session's view of it").contains("Unknown task");
    }

    @Test
    void anUnknownSessionIsNotFoundOnAnyNode() throws Exception {
        String unknown = "A".repeat(43);
        assertThat(call(a, unknown, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}").statusCode()).isEqualTo(404);
        assertThat(call(b, unknown, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}").statusCode()).isEqualTo(404);
    }

    @Test
    void aLevelSetOnOneNodeHoldsOnTheOther() throws Exception {
        String session = initialize(a);
        assertThat(call(b, session, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"logging/setLevel\","
                + "\"params\":{\"level\":\"error\"}}").statusCode()).isEqualTo(200);

        assertThat(call(a, session, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}").statusCode()).isEqualTo(200);

        assertThat(new RedisSessionStore(a.redis()).load(session, Duration.ofMinutes(1)).orElseThrow().state()
                .logLevel().wire()).isEqualTo("error");
    }

    @Test
    void aLevelSetThroughOneNodeGovernsTheVeryNextCallOnTheOtherNodeHoldingTheSession() throws Exception {
        String session = initialize(a);
        String note = "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"note\"}}";
        assertThat(call(a, session, note).body()).as("A holds the session").contains("noted");

        for (int i = 0; i < 10; i++) {
            String level = i % 2 == 0 ? "error" : "info";
            assertThat(call(b, session, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"logging/setLevel\","
                    + "\"params\":{\"level\":\"" + level + "\"}}").statusCode()).isEqualTo(200);

            HttpResponse<String> onA = call(a, session, note);

            assertThat(onA.statusCode()).isEqualTo(200);
            assertThat(onA.body()).contains("an error note", "noted");
            if (level.equals("error")) {
                assertThat(onA.body()).as("level %s set through B, round %d", level, i).doesNotContain("an info note");
            } else {
                assertThat(onA.body()).as("level %s set through B, round %d", level, i).contains("an info note");
            }
        }
    }

    @Test
    void concurrentCallsOfOneSessionThroughBothNodesAreAllAnswered() throws Exception {
        String session = initialize(a);
        List<java.util.concurrent.Future<List<String>>> clients = new ArrayList<>();
        try (var pool = java.util.concurrent.Executors.newFixedThreadPool(8)) {
            for (int c = 0; c < 8; c++) {
                TernNode node = c % 2 == 0 ? a : b;
                int client = c;
                clients.add(pool.submit(() -> {
                    List<String> bodies = new ArrayList<>();
                    for (int i = 0; i < 25; i++) {
                        String text = client + "-" + i;
                        HttpResponse<String> r = call(node, session, "{\"jsonrpc\":\"2.0\",\"id\":\"" + text
                                + "\",\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":"
                                + "{\"text\":\"" + text + "\"}}}");
                        bodies.add(r.statusCode() + " " + r.body());
                    }
                    return bodies;
                }));
            }
            for (int c = 0; c < clients.size(); c++) {
                List<String> bodies = clients.get(c).get(60, TimeUnit.SECONDS);
                for (int i = 0; i < bodies.size(); i++) {
                    assertThat(bodies.get(i)).startsWith("200 ").contains("echo " + c + "-" + i);
                }
            }
        }
    }

    @Test
    void aStreamLostOnOneNodeIsResumedOnTheOtherWithExactlyTheMissedEvents() throws Exception {
        String session = initialize(a);
        HttpResponse<Stream<String>> streamed = http.send(post(a, session, "{\"jsonrpc\":\"2.0\",\"id\":2,"
                + "\"method\":\"tools/call\",\"params\":{\"name\":\"steps\",\"_meta\":{\"progressToken\":\"p\"}}}")
                .build(), HttpResponse.BodyHandlers.ofLines());
        List<String> before = McpHttp.readUntil(streamed.body().iterator(), "\"message\":\"one\"");
        String lastSeen = McpHttp.lastId(before);
        streamed.body().close();
        release.countDown();
        Thread.sleep(300);

        HttpResponse<Stream<String>> resumed = http.send(HttpRequest.newBuilder(URI.create(b.transport().url())).GET()
                .header("Accept", "text/event-stream").header("Mcp-Session-Id", session)
                .header("MCP-Protocol-Version", "2025-11-25").header("Last-Event-ID", lastSeen).build(),
                HttpResponse.BodyHandlers.ofLines());

        assertThat(resumed.statusCode()).isEqualTo(200);
        List<String> after = McpHttp.readUntil(resumed.body().iterator(), "all steps done");
        String data = String.join("\n", after);
        assertThat(data).doesNotContain("\"message\":\"one\"").contains("\"message\":\"two\"", "\"message\":\"three\"",
                "all steps done");
        assertThat(data.indexOf("\"message\":\"two\"")).isLessThan(data.indexOf("\"message\":\"three\""));
        resumed.body().close();
    }
}
