package dev.tern.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.tern.protocol.Json;
import dev.tern.protocol.model.CallToolResult;
import dev.tern.protocol.model.ElicitResult;
import dev.tern.protocol.model.ReadResourceResult;
import dev.tern.protocol.model.ResourceContents;
import dev.tern.server.CacheScope;
import dev.tern.server.McpServer;
import dev.tern.server.NotificationBus;
import dev.tern.server.ResourceSpec;
import dev.tern.server.ToolSpec;
import dev.tern.testing.RedisServer;
import dev.tern.transport.http.HttpServerTransport;

import io.lettuce.core.RedisClient;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import tools.jackson.databind.JsonNode;

/**
 * Two nodes sharing one Redis and its notice channel: what happens on one node reaches the clients listening on the
 * other, in both eras, once.
 */
class ClusterNotificationsTest {
    private static final String DOC = "mem://doc";
    private static RedisServer redisServer;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final List<Stream<String>> open = new ArrayList<>();
    private Node a;
    private Node b;

    /** One Tern node on Redis, and how often it read the resource. */
    private record Node(TernNode node, AtomicInteger reads) implements AutoCloseable {
        McpServer server() {
            return node.server();
        }

        HttpServerTransport transport() {
            return node.transport();
        }

        RedisNotificationBus bus() {
            return node.bus();
        }

        @Override
        public void close() {
            node.close();
        }
    }

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
        open.forEach(Stream::close);
        if (a != null) {
            a.close();
        }
        if (b != null) {
            b.close();
        }
    }

    private Node node() throws InterruptedException {
        AtomicInteger reads = new AtomicInteger();
        return new Node(TernNode.start(redisServer.uri(), (server, redis) -> server
                .listChangedDelay(Duration.ofMillis(10))
                .resource(ResourceSpec.builder(DOC, "doc").cache(Duration.ofMinutes(5), CacheScope.PUBLIC)
                        .handler((ctx, uri, vars) -> ReadResourceResult.of(ResourceContents.text(uri, "text/plain",
                                "read " + reads.incrementAndGet())))
                        .build())
                .tool(ToolSpec.builder("noop").description("Does nothing.")
                        .handler((ctx, args) -> CallToolResult.text("nothing")).build())
                .tool(ToolSpec.builder("greet").description("Asks the user's name, then greets them.")
                        .handler((ctx, args) -> {
                            ElicitResult answer = ctx.elicit("Your name?", (tools.jackson.databind.node.ObjectNode)
                                    Json.mapper().readTree("{\"type\":\"object\",\"properties\":"
                                            + "{\"name\":{\"type\":\"string\"}}}"));
                            return CallToolResult.text("hello " + answer.content().path("name").asString());
                        }).build())), reads);
    }

    @Test
    void aLegacySessionListeningOnOneNodeHearsOfListChangesAndOfUpdatesItSubscribedToThroughTheOther()
            throws Exception {
        String session = initialize(a);
        BlockingQueue<JsonNode> stream = listen(HttpRequest.newBuilder(URI.create(a.transport().url())).GET()
                .header("Accept", "text/event-stream").header("Mcp-Session-Id", session)
                .header("MCP-Protocol-Version", "2025-11-25"));
        // subscribed through the other node, which saves the session; the listening node must take that up
        assertThat(call(b, session, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/subscribe\","
                + "\"params\":{\"uri\":\"" + DOC + "\"}}").statusCode()).isEqualTo(200);
        Thread.sleep(200);

        b.server().notifyResourceUpdated(DOC);
        b.server().addTool(ToolSpec.builder("added").description("Added at run time.")
                .handler((ctx, args) -> CallToolResult.text("added")).build());

        List<String> methods = methods(stream, 2);
        assertThat(methods).containsExactlyInAnyOrder("notifications/resources/updated",
                "notifications/tools/list_changed");
        assertThat(stream.poll(500, TimeUnit.MILLISECONDS)).as("nothing arrives twice").isNull();
    }

    @Test
    void aLegacySessionHearsNothingOfAResourceItDidNotSubscribeTo() throws Exception {
        String session = initialize(a);
        BlockingQueue<JsonNode> stream = listen(HttpRequest.newBuilder(URI.create(a.transport().url())).GET()
                .header("Accept", "text/event-stream").header("Mcp-Session-Id", session)
                .header("MCP-Protocol-Version", "2025-11-25"));
        Thread.sleep(200);

        b.server().notifyResourceUpdated(DOC);
        b.server().notifyResourceUpdated("mem://other");

        assertThat(stream.poll(700, TimeUnit.MILLISECONDS)).isNull();
    }

    @Test
    void aListenOnOneNodeHearsOfListChangesAndResourceUpdatesOnTheOther() throws Exception {
        String body = "{\"jsonrpc\":\"2.0\",\"id\":\"l1\",\"method\":\"subscriptions/listen\",\"params\":{\"_meta\":{"
                + "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                + "\"io.modelcontextprotocol/clientCapabilities\":{},"
                + "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"t\",\"version\":\"1\"}},"
                + "\"notifications\":{\"toolsListChanged\":true,\"resourceSubscriptions\":[\"" + DOC + "\"]}}}";
        BlockingQueue<JsonNode> stream = listen(HttpRequest.newBuilder(URI.create(a.transport().url()))
                .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
                .header("MCP-Protocol-Version", "2026-07-28").header("Mcp-Method", "subscriptions/listen")
                .POST(HttpRequest.BodyPublishers.ofString(body)));
        assertThat(methods(stream, 1)).containsExactly("notifications/subscriptions/acknowledged");

        b.server().removeTool("noop");
        b.server().notifyResourceUpdated(DOC);

        List<JsonNode> received = List.of(next(stream), next(stream));
        assertThat(received).extracting(m -> m.path("method").asString()).containsExactlyInAnyOrder(
                "notifications/tools/list_changed", "notifications/resources/updated");
        assertThat(received).allSatisfy(m -> assertThat(
                m.path("params").path("_meta").path("io.modelcontextprotocol/subscriptionId").asString())
                .isEqualTo("l1"));
        assertThat(stream.poll(500, TimeUnit.MILLISECONDS)).as("nothing arrives twice").isNull();
    }

    @Test
    void anUpdateOnOneNodeDropsTheCachedReadsOfTheOther() throws Exception {
        assertThat(readDoc(a)).isEqualTo("read 1");
        assertThat(readDoc(a)).as("cached").isEqualTo("read 1");

        b.server().notifyResourceUpdated(DOC);

        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (a.reads().get() == 1 && System.nanoTime() < deadline) {
            readDoc(a);
            Thread.sleep(20);
        }
        assertThat(a.reads().get()).isEqualTo(2);
    }

    @Test
    void aNodeIsNotHandedWhatItPublishedItselfAndOthersAreHandedItOnce() throws Exception {
        List<NotificationBus.Notice> ofA = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<NotificationBus.Notice> ofB = new java.util.concurrent.CopyOnWriteArrayList<>();
        a.bus().subscribe(ofA::add);
        b.bus().subscribe(ofB::add);
        RedisClient raw = RedisClient.create(redisServer.uri());
        List<String> onTheChannel = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (StatefulRedisPubSubConnection<String, String> spy = raw.connectPubSub()) {
            spy.addListener(new RedisPubSubAdapter<>() {
                @Override
                public void message(String channel, String message) {
                    onTheChannel.add(message);
                }
            });
            spy.sync().subscribe(Keys.NOTICES);

            a.bus().publish(new NotificationBus.ResourceUpdated("mem://ü/1"));
            a.bus().publish(new NotificationBus.SessionChanged("s-1"));
            b.bus().publish(new NotificationBus.ListChanged("prompts"));

            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while ((ofA.isEmpty() || ofB.size() < 2) && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            Thread.sleep(200);
            assertThat(onTheChannel).hasSize(3);
        } finally {
            raw.shutdown();
        }
        assertThat(ofB).containsExactly(new NotificationBus.ResourceUpdated("mem://ü/1"),
                new NotificationBus.SessionChanged("s-1"));
        assertThat(ofA).containsExactly(new NotificationBus.ListChanged("prompts"));
    }

    @Test
    void aClientAnswersAnElicitationThroughTheOtherNodeAndTheToolWaitingOnTheFirstGetsTheAnswer() throws Exception {
        String session = initialize(a);
        BlockingQueue<JsonNode> call = listen(HttpRequest.newBuilder(URI.create(a.transport().url()))
                .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
                .header("Mcp-Session-Id", session).header("MCP-Protocol-Version", "2025-11-25")
                .POST(HttpRequest.BodyPublishers.ofString("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\","
                        + "\"params\":{\"name\":\"greet\",\"arguments\":{}}}")));
        JsonNode ask = next(call);
        assertThat(ask.path("method").asString()).isEqualTo("elicitation/create");

        HttpResponse<String> answered = call(b, session, "{\"jsonrpc\":\"2.0\",\"id\":"
                + Json.mapper().writeValueAsString(ask.get("id"))
                + ",\"result\":{\"action\":\"accept\",\"content\":{\"name\":\"Ada\"}}}");
        assertThat(answered.statusCode()).isEqualTo(202);

        JsonNode result = next(call);
        assertThat(result.path("id").asInt()).isEqualTo(5);
        assertThat(result.path("result").path("content").get(0).path("text").asString()).isEqualTo("hello Ada");
    }

    @Test
    void whenItsNodeShutsDownAStandaloneStreamEndsWithARetryHintAndCarriesOnOnAnotherNode() throws Exception {
        String session = initialize(a);
        HttpResponse<Stream<String>> get = http.send(HttpRequest.newBuilder(URI.create(a.transport().url())).GET()
                .header("Accept", "text/event-stream").header("Mcp-Session-Id", session)
                .header("MCP-Protocol-Version", "2025-11-25").timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofLines());
        assertThat(get.statusCode()).isEqualTo(200);
        BlockingQueue<String> lines = lines(get.body());
        Thread.sleep(200);
        b.server().addTool(ToolSpec.builder("first").description("Added at run time.")
                .handler((ctx, args) -> CallToolResult.text("first")).build());
        List<String> before = untilData(lines, "notifications/tools/list_changed");
        String lastId = before.stream().filter(l -> l.startsWith("id: ")).reduce((x, y) -> y).orElseThrow()
                .substring(4);

        long started = System.nanoTime();
        a.transport().close();
        assertThat(Duration.ofNanos(System.nanoTime() - started)).as("an idle node shuts down at once")
                .isLessThan(Duration.ofSeconds(5));
        List<String> rest = new ArrayList<>();
        for (String line = lines.poll(10, TimeUnit.SECONDS); line != null && !line.equals(END);
                line = lines.poll(10, TimeUnit.SECONDS)) {
            rest.add(line);
        }
        assertThat(rest).as("the stream ends with a hint to come back").anyMatch(l -> l.startsWith("retry: "));

        BlockingQueue<JsonNode> resumed = listen(HttpRequest.newBuilder(URI.create(b.transport().url())).GET()
                .header("Accept", "text/event-stream").header("Mcp-Session-Id", session)
                .header("MCP-Protocol-Version", "2025-11-25").header("Last-Event-ID", lastId));
        Thread.sleep(200);
        b.server().addTool(ToolSpec.builder("second").description("Added at run time.")
                .handler((ctx, args) -> CallToolResult.text("second")).build());
        assertThat(next(resumed).path("method").asString()).isEqualTo("notifications/tools/list_changed");
        assertThat(resumed.poll(500, TimeUnit.MILLISECONDS)).as("nothing arrives twice").isNull();
    }

    private static final String END = "\u0000end";

    /** The lines of a stream as they come, then {@link #END}. */
    private BlockingQueue<String> lines(Stream<String> body) {
        open.add(body);
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread.startVirtualThread(() -> {
            try {
                body.forEach(lines::add);
            } catch (RuntimeException closed) {
                // ended under the reader
            }
            lines.add(END);
        });
        return lines;
    }

    /** The lines up to and including the data line holding {@code text}. */
    private static List<String> untilData(BlockingQueue<String> lines, String text) throws InterruptedException {
        List<String> seen = new ArrayList<>();
        while (true) {
            String line = lines.poll(10, TimeUnit.SECONDS);
            assertThat(line).as("%s within 10 s, after %s", text, seen).isNotNull().isNotEqualTo(END);
            seen.add(line);
            if (line.startsWith("data: ") && line.contains(text)) {
                return seen;
            }
        }
    }

    @Test
    void aResponseNoNodeWaitsForIsDroppedEverywhere() throws Exception {
        String session = initialize(a);
        assertThat(call(b, session, "{\"jsonrpc\":\"2.0\",\"id\":\"nobody\",\"result\":{}}").statusCode())
                .isEqualTo(202);
        assertThat(call(a, session, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\","
                + "\"params\":{\"name\":\"noop\",\"arguments\":{}}}").body()).contains("nothing");
    }

    @Test
    void aClientResponseCrossesTheBusWhole() {
        byte[] json = "{\"jsonrpc\":\"2.0\",\"id\":\"n1-1\",\"result\":{\"text\":\"two\\nlines ü\"}}"
                .getBytes(StandardCharsets.UTF_8);
        NotificationBus.Notice decoded = RedisNotificationBus.decode(RedisNotificationBus.encode("0123456789abcdef",
                new NotificationBus.ClientResponse("session-1", json)));
        assertThat(decoded).isInstanceOfSatisfying(NotificationBus.ClientResponse.class, r -> {
            assertThat(r.sessionId()).isEqualTo("session-1");
            assertThat(r.message()).isEqualTo(json);
        });
    }

    @Test
    void aNoticeOfAKindANodeDoesNotKnowIsIgnored() {
        byte[] known = RedisNotificationBus.encode("0123456789abcdef", new NotificationBus.ListChanged("tools"));
        assertThat(RedisNotificationBus.decode(known)).isEqualTo(new NotificationBus.ListChanged("tools"));
        assertThat(RedisNotificationBus.decode("0123456789abcdefzwhatever".getBytes(StandardCharsets.UTF_8)))
                .isNull();
    }

    private String readDoc(Node node) throws Exception {
        String body = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"resources/read\",\"params\":{\"_meta\":{"
                + "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                + "\"io.modelcontextprotocol/clientCapabilities\":{},"
                + "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"t\",\"version\":\"1\"}},\"uri\":\"" + DOC + "\"}}";
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(node.transport().url()))
                .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
                .header("MCP-Protocol-Version", "2026-07-28").header("Mcp-Method", "resources/read")
                .header("Mcp-Name", DOC).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return Json.mapper().readTree(r.body()).path("result").path("contents").get(0).path("text").asString();
    }

    /** Opens an SSE stream and hands its messages to the returned queue as they come. */
    private BlockingQueue<JsonNode> listen(HttpRequest.Builder request) throws Exception {
        HttpResponse<Stream<String>> response = http.send(request.timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofLines());
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

    private static JsonNode next(BlockingQueue<JsonNode> stream) throws InterruptedException {
        JsonNode m = stream.poll(10, TimeUnit.SECONDS);
        assertThat(m).as("a message within 10 s").isNotNull();
        return m;
    }

    private static List<String> methods(BlockingQueue<JsonNode> stream, int count) throws InterruptedException {
        List<String> methods = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            methods.add(next(stream).path("method").asString());
        }
        return methods;
    }

    private HttpResponse<String> call(Node node, String session, String body) throws Exception {
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(node.transport().url()))
                .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofString(body)).timeout(Duration.ofSeconds(20));
        if (session != null) {
            r.header("Mcp-Session-Id", session).header("MCP-Protocol-Version", "2025-11-25");
        }
        return http.send(r.build(), HttpResponse.BodyHandlers.ofString());
    }

    private String initialize(Node node) throws Exception {
        HttpResponse<String> init = call(node, null, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
                + "\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"elicitation\":{}},"
                + "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}");
        assertThat(init.statusCode()).isEqualTo(200);
        String session = init.headers().firstValue("mcp-session-id").orElseThrow();
        assertThat(call(node, session, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}").statusCode())
                .isEqualTo(202);
        return session;
    }
}
