package dev.tern.client;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import dev.tern.client.http.HttpProtocol;
import dev.tern.protocol.McpException;
import dev.tern.protocol.ProtocolVersion;
import dev.tern.protocol.model.CallToolResult;
import dev.tern.protocol.model.TextContent;
import dev.tern.protocol.model.TextResourceContents;
import dev.tern.protocol.model.ToolDefinition;

import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** McpClient against Tern's HTTP transport in process: both eras (and AUTO), HTTP/1.1, h2c and TLS h2. */
class McpClientHttpTest {
    private static TestServers.Running clear;
    private static TestServers.Running tls;

    @BeforeAll
    static void start() throws InterruptedException {
        clear = TestServers.http(b -> b);
        tls = TestServers.http(b -> b.tls(t -> t.selfSigned()));
    }

    @AfterAll
    static void stop() {
        if (clear != null) {
            clear.close();
        }
        if (tls != null) {
            tls.close();
        }
    }

    static List<Arguments> combinations() {
        List<Arguments> all = new ArrayList<>();
        for (HttpProtocol p : HttpProtocol.values()) {
            for (Era e : Era.values()) {
                all.add(Arguments.of(p, e));
            }
        }
        return all;
    }

    private static McpClient.HttpBuilder client(HttpProtocol protocol) {
        return protocol == HttpProtocol.H2
                ? McpClient.http(URI.create("https://127.0.0.1:" + tls.port() + "/mcp")).protocol(protocol).insecure()
                : McpClient.http(URI.create("http://127.0.0.1:" + clear.port() + "/mcp")).protocol(protocol);
    }

    @ParameterizedTest
    @MethodSource("combinations")
    void everyFeatureInEveryCombination(HttpProtocol protocol, Era era) {
        List<String> notifications = new CopyOnWriteArrayList<>();
        try (McpClient client = client(protocol).era(era).notificationListener(n -> notifications.add(n.method()))
                .build()) {
            assertThat(client.connect().join()).isEqualTo(era == Era.LEGACY ? Era.LEGACY : Era.MODERN);
            assertThat(client.protocolVersion()).isEqualTo(era == Era.LEGACY
                    ? ProtocolVersion.V2025_11_25 : ProtocolVersion.V2026_07_28);

            List<ToolDefinition> tools = client.listTools().join();
            assertThat(tools).extracting(ToolDefinition::name).contains("get_user", "search_users", "count", "always_fails");

            CallToolResult user = client.callTool("get_user", Map.of("id", "7")).join();
            assertThat(user.isError()).isNotEqualTo(Boolean.TRUE);
            assertThat(user.structuredContent().path("id").asString()).isEqualTo("7");
            assertThat(user.content()).first().isInstanceOf(TextContent.class);

            CallToolResult failed = client.callTool("always_fails", null).join();
            assertThat(failed.isError()).isTrue();
            assertThat(((TextContent) failed.content().get(0)).text()).contains("always fails");

            assertThatThrownBy(() -> client.callTool("no_such_tool", Map.of()).join())
                    .cause().isInstanceOf(McpException.class)
                    .satisfies(e -> assertThat(((McpException) e).code()).isEqualTo(-32602));

            assertThat(client.readResource("user://7").join().contents()).singleElement()
                    .isInstanceOfSatisfying(TextResourceContents.class, t -> assertThat(t.text()).contains("\"id\""));
            assertThat(client.listResources().join()).isNotEmpty();
            assertThat(client.listPrompts().join()).extracting(p -> p.name()).contains("summarize_user");
            assertThat(client.getPrompt("summarize_user", Map.of("id", "7")).join().messages()).isNotEmpty();
            client.ping().join();

            List<JsonNode> progress = new CopyOnWriteArrayList<>();
            CallToolResult counted = client.callTool("count", Map.of("steps", 3), progress::add).join();
            assertThat(counted.structuredContent().path("steps").asInt()).isEqualTo(3);
            assertThat(progress).extracting(p -> p.path("progress").asInt()).containsExactly(1, 2, 3);
            assertThat(notifications).contains("notifications/progress");

            McpReply raw = client.send("tools/call", dev.tern.protocol.Json.object().put("name", "nope")).join();
            assertThat(raw.isError()).isTrue();
            assertThat(raw.httpStatus()).isPositive();
            assertThat(raw.completeNanos()).isGreaterThanOrEqualTo(raw.sentNanos());
            McpReply unknownMethod = client.send("no/such/method", null).join();
            assertThat(unknownMethod.error().code()).isEqualTo(-32601);
        }
    }

    @ParameterizedTest
    @org.junit.jupiter.params.provider.EnumSource(value = Era.class, names = {"MODERN", "LEGACY"})
    void logMessagesAtTheRequestedLevel(Era era) {
        List<JsonNode> logs = new CopyOnWriteArrayList<>();
        try (McpClient client = client(HttpProtocol.HTTP_1_1).era(era)
                .logLevel(dev.tern.protocol.model.LoggingLevel.WARNING)
                .notificationListener(n -> {
                    if (n.method().equals("notifications/message")) {
                        logs.add(n.params());
                    }
                }).build()) {
            assertThat(((TextContent) client.callTool("log_twice", null).join().content().get(0)).text())
                    .isEqualTo("logged");
            assertThat(logs).singleElement().satisfies(l -> {
                assertThat(l.path("level").asString()).isEqualTo("warning");
                assertThat(l.path("data").asString()).isEqualTo("a warning message");
            });
        }
    }

    @ParameterizedTest
    @MethodSource("combinations")
    void cancellingASentRequestReachesTheServer(HttpProtocol protocol, Era era) throws Exception {
        try (McpClient client = client(protocol).era(era).build()) {
            client.connect().join();
            int before = TestServers.Extras.CANCELLED.get();
            int started = TestServers.Extras.STARTED.get();
            CompletableFuture<McpReply> slow = client.send("tools/call", dev.tern.protocol.Json.object()
                    .put("name", "slow").set("arguments", dev.tern.protocol.Json.object().put("millis", 10_000)));
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(8);
            while (TestServers.Extras.STARTED.get() == started && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(slow.cancel(true)).isTrue();
            while (TestServers.Extras.CANCELLED.get() == before && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(TestServers.Extras.CANCELLED.get()).as("the slow tool saw its cancellation").isGreaterThan(before);
            assertThat(client.listTools().join()).isNotEmpty();
        }
    }

    @org.junit.jupiter.api.Test
    void aRequestPastItsTimeoutFailsWithATimeout() {
        try (McpClient client = client(HttpProtocol.H2C).era(Era.MODERN).requestTimeout(java.time.Duration.ofMillis(300))
                .build()) {
            assertThatThrownBy(() -> client.callTool("slow", Map.of("millis", 5_000)).join())
                    .cause().isInstanceOf(java.util.concurrent.TimeoutException.class);
            assertThat(client.listTools().join()).isNotEmpty();
        }
    }

    @org.junit.jupiter.api.Test
    void aServerThatIsDownFailsTheCallAndTheNextCallTriesAgain() throws Exception {
        int port;
        try (java.net.ServerSocket probe = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        try (McpClient client = McpClient.http(URI.create("http://127.0.0.1:" + port + "/mcp")).era(Era.LEGACY).build()) {
            assertThatThrownBy(() -> client.listTools().join()).cause().isInstanceOf(McpClientException.class)
                    .hasMessageContaining("no response to initialize from http://127.0.0.1:" + port);
            try (TestServers.Running late = TestServers.http(b -> b.port(port))) {
                assertThat(client.listTools().join()).isNotEmpty();
                assertThat(client.era()).isEqualTo(Era.LEGACY);
            }
        }
    }

    @org.junit.jupiter.api.Test
    void clientsSharingTlsSettingsResumeTheirSessions() {
        dev.tern.client.http.ClientTls shared = dev.tern.client.http.ClientTls.builder().trustAll().build();
        List<dev.tern.client.http.ConnectionInfo> connections = new CopyOnWriteArrayList<>();
        for (Era era : List.of(Era.MODERN, Era.LEGACY)) {
            try (McpClient client = McpClient.http(URI.create("https://127.0.0.1:" + tls.port() + "/mcp"))
                    .protocol(HttpProtocol.H2).tls(shared).era(era).connectionListener(connections::add).build()) {
                assertThat(client.listTools().join()).isNotEmpty();
            }
        }
        assertThat(connections).hasSize(2).allSatisfy(c -> assertThat(c.protocol()).isEqualTo("h2"));
        assertThat(connections.get(0).tlsResumed()).isFalse();
        assertThat(connections.get(1).tlsResumed()).isTrue();
    }

    @org.junit.jupiter.api.Test
    void modernCallsMirrorXMcpHeaderParametersAndLearnThemOnAHeaderMismatch() {
        List<Integer> statuses = new CopyOnWriteArrayList<>();
        try (McpClient client = client(HttpProtocol.H2C).era(Era.MODERN).build()) {
            // not listed yet: the first attempt lacks Mcp-Param-Region, gets -32020, lists the tools and retries
            CallToolResult first = client.callTool("region_echo", Map.of("region", "eu-west", "query", "q")).join();
            assertThat(((TextContent) first.content().get(0)).text()).isEqualTo("region eu-west");
            McpReply direct = client.send("tools/call", dev.tern.protocol.Json.object().put("name", "region_echo")
                    .set("arguments", dev.tern.protocol.Json.object().put("region", "x"))).join();
            assertThat(direct.error().code()).as("a raw send mirrors nothing").isEqualTo(-32020);
            assertThat(direct.httpStatus()).isEqualTo(400);
            CallToolResult again = client.callTool("region_echo", Map.of("region", "Zürich")).join();
            assertThat(((TextContent) again.content().get(0)).text()).isEqualTo("region Zürich");
        }
    }

    @ParameterizedTest
    @MethodSource("combinations")
    void manyConcurrentRequests(HttpProtocol protocol, Era era) {
        try (McpClient client = client(protocol).era(era).maxConnections(4).build()) {
            List<CompletableFuture<CallToolResult>> calls = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                calls.add(client.callTool("get_user", Map.of("id", Integer.toString(1 + i % 100))));
            }
            for (int i = 0; i < calls.size(); i++) {
                assertThat(calls.get(i).join().structuredContent().path("id").asString())
                        .isEqualTo(Integer.toString(1 + i % 100));
            }
        }
    }
}
