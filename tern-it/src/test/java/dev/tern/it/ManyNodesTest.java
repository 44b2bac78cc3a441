package dev.tern.it;

import static dev.tern.it.TypeScriptClients.assertEra;
import static dev.tern.it.TypeScriptClients.assertServing;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.tern.protocol.Json;
import dev.tern.testing.Nginx;
import dev.tern.testing.RedisServer;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Three Tern nodes sharing one Redis behind nginx, round robin without stickiness: a session opened on one node is
 * served by the others, a stream whose node is killed resumes through another with every event once, in order, and
 * the clients of one node hear of what changed on another.
 */
class ManyNodesTest {
    private static final String SECRET = "a secret every node of this test shares (32+ bytes)";
    private static final Pattern URL = Pattern.compile("serving at (http://\\S+)");
    private static final int TICKS = 40;

    @TempDir
    Path temp;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @Test
    void theTypeScriptSdkRunsASessionThroughThreeTernServeNodes() throws Exception {
        NodeTools.node();
        NodeTools.npmDir();
        try (RedisServer redis = RedisServer.start();
                TernProcess a = TernProcess.http("user-directory", "--redis", redis.uri(), "--secret", SECRET);
                TernProcess b = TernProcess.http("user-directory", "--redis", redis.uri(), "--secret", SECRET);
                TernProcess c = TernProcess.http("user-directory", "--redis", redis.uri(), "--secret", SECRET);
                Nginx nginx = Nginx.start(List.of(port(a.url()), port(b.url()), port(c.url())))) {
            ObjectNode config = Json.object();
            config.put("transport", "streamable");
            config.put("url", nginx.url("/mcp"));
            JsonNode summary = TypeScriptClients.run("http-client.mjs", config, "v1", "legacy",
                    List.of("tools", "get_user", "resource", "prompt", "completion", "session"), 10, temp);

            assertEra(summary, "@modelcontextprotocol/sdk", "legacy", "2025-11-25");
            assertServing(summary);
            JsonNode session = summary.path("checks").path("session");
            assertThat(session.path("deleteStatus").asInt()).isEqualTo(200);
            assertThat(session.path("afterDelete").path("post").asInt()).isEqualTo(404);
            String sessionId = summary.path("http").path("sessionIdsReturned").get(0).asString();
            Set<String> nodes = new HashSet<>();
            for (String line : nginx.accessLog()) {
                String[] fields = line.split(" ");
                if (fields.length == 4 && fields[3].equals(sessionId) && fields[1].startsWith("2")) {
                    nodes.add(fields[2]);
                }
            }
            assertThat(nodes).as("the nodes that served the session: %s", nginx.accessLog()).hasSize(3);
            JavaSdkClientHttpTest.assertNoServerErrors(a.stderr() + b.stderr() + c.stderr());
        }
    }

    @Test
    void theJavaSdkRunsASessionWithElicitationAndListChangesThroughThreeNodes() throws Exception {
        List<TernProcess> nodes = new ArrayList<>();
        try (RedisServer redis = RedisServer.start()) {
            List<Integer> ports = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                TernProcess node = TernProcess.main(StreamingNodeMain.class, redis.uri(), SECRET);
                nodes.add(node);
                ports.add(port(awaitUrl(node)));
            }
            try (Nginx nginx = Nginx.start(ports)) {
                java.util.concurrent.CountDownLatch toolsChanged = new java.util.concurrent.CountDownLatch(1);
                var transport = io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport
                        .builder(nginx.url("/mcp")).connectTimeout(Duration.ofSeconds(30)).build();
                var client = io.modelcontextprotocol.client.McpClient.sync(transport)
                        .clientInfo(io.modelcontextprotocol.spec.McpSchema.Implementation.builder("many-nodes-java",
                                "1").build())
                        .requestTimeout(Duration.ofSeconds(30)).initializationTimeout(Duration.ofSeconds(30))
                        .capabilities(io.modelcontextprotocol.spec.McpSchema.ClientCapabilities.builder().elicitation()
                                .build())
                        .elicitation(request -> io.modelcontextprotocol.spec.McpSchema.ElicitResult.builder(
                                io.modelcontextprotocol.spec.McpSchema.ElicitResult.Action.ACCEPT)
                                .content(Map.of("name", "Ada")).build())
                        .toolsChangeConsumer(tools -> toolsChanged.countDown())
                        .build();
                try {
                    client.initialize();
                    for (int i = 0; i < 3; i++) {
                        assertThat(client.listTools().tools()).extracting(t -> t.name()).contains("greet");
                        var greeted = client.callTool(io.modelcontextprotocol.spec.McpSchema.CallToolRequest
                                .builder("greet").arguments(Map.of()).build());
                        assertThat(greeted.isError()).isNotEqualTo(Boolean.TRUE);
                        assertThat(((io.modelcontextprotocol.spec.McpSchema.TextContent) greeted.content().get(0))
                                .text()).isEqualTo("hello Ada");
                    }
                    client.callTool(io.modelcontextprotocol.spec.McpSchema.CallToolRequest.builder("add_tool")
                            .arguments(Map.of()).build());
                    assertThat(toolsChanged.await(15, TimeUnit.SECONDS))
                            .as("the tools' list change reached the client's stream, whichever node holds it").isTrue();
                } finally {
                    client.closeGracefully();
                }
                Map<String, Set<String>> nodesOfSession = new HashMap<>();
                for (String line : nginx.accessLog()) {
                    String[] fields = line.split(" ");
                    if (fields.length == 4 && fields[1].startsWith("2") && !fields[3].equals("-")) {
                        nodesOfSession.computeIfAbsent(fields[3], k -> new HashSet<>()).add(fields[2]);
                    }
                }
                assertThat(nodesOfSession).as("nginx: %s", nginx.accessLog()).hasSize(1);
                assertThat(nodesOfSession.values().iterator().next()).as("the nodes that served the session")
                        .hasSize(3);
            }
            StringBuilder stderr = new StringBuilder();
            nodes.forEach(n -> stderr.append(n.stderr()));
            JavaSdkClientHttpTest.assertNoServerErrors(stderr.toString());
        } finally {
            for (TernProcess node : nodes) {
                node.close();
            }
        }
    }

    @Test
    void redisWithoutASharedSecretIsRefusedInOneLine() throws Exception {
        try (TernProcess tern = TernProcess.main(dev.tern.cli.Main.class, "serve", "--port", "0", "--redis",
                "redis://127.0.0.1:1")) {
            assertThat(tern.waitFor(60, TimeUnit.SECONDS)).as(tern.stderr()).isEqualTo(2);
            assertThat(tern.stderr().lines().filter(line -> line.startsWith("tern serve:"))).singleElement().asString()
                    .contains("--redis needs --secret (or TERN_SECRET)");
        }
    }

    @Test
    void streamsOfAKilledNodeResumeThroughAnotherWithEveryEventOnceAndInOrder() throws Exception {
        List<TernProcess> nodes = new ArrayList<>();
        try (RedisServer redis = RedisServer.start()) {
            List<Integer> ports = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                TernProcess node = TernProcess.main(StreamingNodeMain.class, redis.uri(), SECRET);
                nodes.add(node);
                ports.add(port(awaitUrl(node)));
            }
            try (Nginx nginx = Nginx.start(ports)) {
                String url = nginx.url("/mcp");
                List<Streamed> streams = new ArrayList<>();
                for (int i = 0; i < 6; i++) {
                    streams.add(startTicks(url, initialize(url)));
                }
                for (Streamed s : streams) {
                    s.readUntilTick(5);
                    s.response.body().close();
                }
                Map<String, String> nodeOfSession = awaitToolCallUpstreams(nginx, streams);
                String killed = nodeOfSession.get(streams.get(0).session);
                TernProcess victim = nodes.get(ports.indexOf(port("http://" + killed + "/")));
                Thread.sleep(300);
                victim.process().destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                Thread.sleep(TICKS * 50 + 1_000); // the tools on the other nodes finish meanwhile

                int onKilled = 0;
                for (Streamed s : streams) {
                    s.resume(url);
                    boolean died = nodeOfSession.get(s.session).equals(killed);
                    List<Integer> ticks = s.ticks;
                    assertThat(ticks).as("ticks of a stream, once each and in order").doesNotHaveDuplicates()
                            .isSorted();
                    assertThat(ticks.get(0)).isEqualTo(1);
                    assertThat(ticks.get(ticks.size() - 1)).isEqualTo(ticks.size());
                    assertThat(s.eventIds).doesNotHaveDuplicates();
                    if (died) {
                        onKilled++;
                        assertThat(ticks.size()).as("events sent after the client left, before the kill").isGreaterThan(5);
                        assertThat(s.result).isFalse();
                    } else {
                        assertThat(ticks).hasSize(TICKS);
                        assertThat(s.result).isTrue();
                    }
                }
                assertThat(onKilled).isPositive();
            }
        } finally {
            for (TernProcess node : nodes) {
                node.close();
            }
        }
    }

    @Test
    void clientsOfOneNodeHearOfListChangesAndResourceUpdatesMadeOnAnotherInBothEras() throws Exception {
        List<TernProcess> nodes = new ArrayList<>();
        List<Stream<String>> streams = new ArrayList<>();
        try (RedisServer redis = RedisServer.start()) {
            List<String> urls = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                TernProcess node = TernProcess.main(StreamingNodeMain.class, redis.uri(), SECRET);
                nodes.add(node);
                urls.add(awaitUrl(node));
            }
            String a = urls.get(0);
            String b = urls.get(1);
            String session = initialize(a);
            BlockingQueue<JsonNode> legacy = sse(streams, HttpRequest.newBuilder(URI.create(a)).GET()
                    .header("Accept", "text/event-stream").header("Mcp-Session-Id", session)
                    .header("MCP-Protocol-Version", "2025-11-25"));
            BlockingQueue<JsonNode> listen = sse(streams, modern(a, "subscriptions/listen", null,
                    "\"notifications\":{\"toolsListChanged\":true,\"resourceSubscriptions\":[\"mem://doc\"]}"));
            assertThat(next(listen).path("method").asString()).isEqualTo("notifications/subscriptions/acknowledged");
            HttpResponse<String> subscribed = http.send(post(b, session, "{\"jsonrpc\":\"2.0\",\"id\":2,"
                    + "\"method\":\"resources/subscribe\",\"params\":{\"uri\":\"mem://doc\"}}"),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(subscribed.statusCode()).as(subscribed.body()).isEqualTo(200);

            HttpResponse<String> touched = http.send(post(b, session, "{\"jsonrpc\":\"2.0\",\"id\":3,"
                    + "\"method\":\"tools/call\",\"params\":{\"name\":\"touch\",\"arguments\":{}}}"),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(touched.body()).contains("touched");
            HttpResponse<String> added = http.send(modern(b, "tools/call", "add_tool",
                    "\"name\":\"add_tool\",\"arguments\":{}").build(), HttpResponse.BodyHandlers.ofString());
            assertThat(added.body()).contains("added");

            for (BlockingQueue<JsonNode> stream : List.of(legacy, listen)) {
                assertThat(List.of(next(stream), next(stream))).extracting(m -> m.path("method").asString())
                        .containsExactlyInAnyOrder("notifications/resources/updated",
                                "notifications/tools/list_changed");
            }
            Thread.sleep(500);
            assertThat(legacy).as("nothing arrives twice").isEmpty();
            assertThat(listen).as("nothing arrives twice").isEmpty();
        } finally {
            streams.forEach(Stream::close);
            for (TernProcess node : nodes) {
                node.close();
            }
        }
    }

    @Test
    void aSigtermedNodeEndsItsStreamWithARetryHintAndTheSessionHearsOfChangesOnAnotherNode() throws Exception {
        List<TernProcess> nodes = new ArrayList<>();
        List<Stream<String>> streams = new ArrayList<>();
        try (RedisServer redis = RedisServer.start()) {
            List<String> urls = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                TernProcess node = TernProcess.main(StreamingNodeMain.class, redis.uri(), SECRET);
                nodes.add(node);
                urls.add(awaitUrl(node));
            }
            String a = urls.get(0);
            String b = urls.get(1);
            String session = initialize(a);
            HttpResponse<Stream<String>> get = http.send(HttpRequest.newBuilder(URI.create(a)).GET()
                    .header("Accept", "text/event-stream").header("Mcp-Session-Id", session)
                    .header("MCP-Protocol-Version", "2025-11-25").timeout(Duration.ofSeconds(60)).build(),
                    HttpResponse.BodyHandlers.ofLines());
            assertThat(get.statusCode()).isEqualTo(200);
            streams.add(get.body());
            Iterator<String> lines = get.body().iterator();
            String lastId = null;
            while (lastId == null && lines.hasNext()) {
                String line = lines.next();
                if (line.startsWith("id: ")) {
                    lastId = line.substring(4);
                }
            }
            assertThat(lastId).as("the stream's priming id").isNotNull();

            long started = System.nanoTime();
            nodes.get(0).process().destroy(); // SIGTERM
            boolean retryHint = false;
            while (lines.hasNext()) {
                String line = lines.next();
                retryHint |= line.startsWith("retry: ");
                if (line.startsWith("id: ")) {
                    lastId = line.substring(4);
                }
            }
            assertThat(retryHint).as("the stream ended with a hint to come back").isTrue();
            assertThat(nodes.get(0).process().waitFor(15, TimeUnit.SECONDS)).as("the node exited").isTrue();
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(15));

            BlockingQueue<JsonNode> resumed = sse(streams, HttpRequest.newBuilder(URI.create(b)).GET()
                    .header("Accept", "text/event-stream").header("Mcp-Session-Id", session)
                    .header("MCP-Protocol-Version", "2025-11-25").header("Last-Event-ID", lastId));
            HttpResponse<String> added = http.send(modern(b, "tools/call", "add_tool",
                    "\"name\":\"add_tool\",\"arguments\":{}").build(), HttpResponse.BodyHandlers.ofString());
            assertThat(added.body()).contains("added");
            assertThat(next(resumed).path("method").asString()).isEqualTo("notifications/tools/list_changed");
        } finally {
            streams.forEach(Stream::close);
            for (TernProcess node : nodes) {
                node.close();
            }
        }
    }

    /** A 2026-07-28 request to one node; {@code params} are the members besides {@code _meta}. */
    private static HttpRequest.Builder modern(String url, String method, String name, String params) {
        String body = "{\"jsonrpc\":\"2.0\",\"id\":\"m1\",\"method\":\"" + method + "\",\"params\":{\"_meta\":{"
                + "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                + "\"io.modelcontextprotocol/clientCapabilities\":{},"
                + "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"many-nodes\",\"version\":\"1\"}}," + params + "}}";
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
                .header("MCP-Protocol-Version", "2026-07-28").header("Mcp-Method", method)
                .POST(HttpRequest.BodyPublishers.ofString(body));
        return name == null ? r : r.header("Mcp-Name", name);
    }

    /** Opens an SSE stream and hands its messages to the returned queue as they come. */
    private BlockingQueue<JsonNode> sse(List<Stream<String>> open, HttpRequest.Builder request) throws Exception {
        HttpResponse<Stream<String>> response = http.send(request.timeout(Duration.ofSeconds(60)).build(),
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
        JsonNode m = stream.poll(15, TimeUnit.SECONDS);
        assertThat(m).as("a message within 15 s").isNotNull();
        return m;
    }

    /** One client's SSE stream of a {@code ticks} call: the ticks and event ids it saw, and whether the result came. */
    private final class Streamed {
        final String session;
        HttpResponse<Stream<String>> response;
        Iterator<String> lines;
        final List<Integer> ticks = new ArrayList<>();
        final List<String> eventIds = new ArrayList<>();
        String lastId;
        boolean result;

        Streamed(String session, HttpResponse<Stream<String>> response) {
            this.session = session;
            this.response = response;
            this.lines = response.body().iterator();
        }

        void readUntilTick(int tick) {
            while (lines.hasNext() && (ticks.isEmpty() || ticks.get(ticks.size() - 1) < tick)) {
                take(lines.next());
            }
        }

        void resume(String url) throws Exception {
            HttpResponse<Stream<String>> resumed = http.send(HttpRequest.newBuilder(URI.create(url)).GET()
                    .header("Accept", "text/event-stream").header("Mcp-Session-Id", session)
                    .header("MCP-Protocol-Version", "2025-11-25").header("Last-Event-ID", lastId)
                    .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofLines());
            assertThat(resumed.statusCode()).isEqualTo(200);
            String resumedAfter = lastId;
            try (Stream<String> body = resumed.body()) {
                CompletableFuture<Void> read = CompletableFuture.runAsync(() -> body.forEach(this::take),
                        Thread::startVirtualThread);
                try {
                    read.get(30, TimeUnit.SECONDS);
                } catch (TimeoutException e) {
                    body.close();
                    throw new AssertionError("The stream resumed after " + resumedAfter + " (session " + session
                            + ", served by " + resumed.headers().firstValue("x-upstream").orElse("?")
                            + ") did not end within 30 s; it had sent events " + List.copyOf(eventIds), e);
                }
            }
        }

        private void take(String line) {
            if (line.startsWith("id: ")) {
                lastId = line.substring(4);
                eventIds.add(lastId);
            } else if (line.startsWith("data: ")) {
                JsonNode message = Json.mapper().readTree(line.substring(6));
                if (message.path("method").asString("").equals("notifications/progress")) {
                    ticks.add(message.path("params").path("progress").asInt());
                } else if (message.has("result")) {
                    result = true;
                }
            }
        }
    }

    private String initialize(String url) throws Exception {
        HttpResponse<String> init = http.send(post(url, null, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
                + "\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                + "\"clientInfo\":{\"name\":\"many-nodes\",\"version\":\"1\"}}}"), HttpResponse.BodyHandlers.ofString());
        assertThat(init.statusCode()).as(init.body()).isEqualTo(200);
        String session = init.headers().firstValue("mcp-session-id").orElseThrow();
        HttpResponse<String> initialized = http.send(post(url, session,
                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"), HttpResponse.BodyHandlers.ofString());
        assertThat(initialized.statusCode()).isEqualTo(202);
        return session;
    }

    private Streamed startTicks(String url, String session) throws Exception {
        HttpResponse<Stream<String>> response = http.send(post(url, session, "{\"jsonrpc\":\"2.0\",\"id\":2,"
                + "\"method\":\"tools/call\",\"params\":{\"name\":\"ticks\",\"arguments\":{\"count\":" + TICKS
                + ",\"intervalMs\":50},\"_meta\":{\"progressToken\":\"t\"}}}"), HttpResponse.BodyHandlers.ofLines());
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("content-type").orElse("")).startsWith("text/event-stream");
        return new Streamed(session, response);
    }

    private static HttpRequest post(String url, String session, String body) {
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (session != null) {
            r.header("Mcp-Session-Id", session).header("MCP-Protocol-Version", "2025-11-25");
        }
        return r.build();
    }

    /** The upstream (host:port) that served each stream's tools/call, from nginx's access log. */
    private static Map<String, String> awaitToolCallUpstreams(Nginx nginx, List<Streamed> streams)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            Map<String, List<String>> posts = new HashMap<>();
            for (String line : nginx.accessLog()) {
                String[] f = line.split(" ");
                if (f.length == 4 && f[0].equals("POST")) {
                    posts.computeIfAbsent(f[3], k -> new ArrayList<>()).add(f[2]);
                }
            }
            Map<String, String> upstreams = new HashMap<>();
            for (Streamed s : streams) {
                List<String> of = posts.getOrDefault(s.session, List.of());
                if (of.size() >= 2) { // notifications/initialized, then tools/call
                    upstreams.put(s.session, of.get(of.size() - 1));
                }
            }
            if (upstreams.size() == streams.size()) {
                return upstreams;
            }
            assertThat(System.nanoTime()).as("nginx logged every tools/call: %s", nginx.accessLog())
                    .isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    private static String awaitUrl(TernProcess node) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            Matcher m = URL.matcher(node.stderr());
            if (m.find()) {
                return m.group(1);
            }
            assertThat(node.process().isAlive()).as("the node died: %s", node.stderr()).isTrue();
            Thread.sleep(50);
        }
        throw new AssertionError("the node printed no URL: " + node.stderr());
    }

    private static int port(String url) {
        return URI.create(url).getPort();
    }
}
