package dev.tern.observability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import dev.tern.client.Era;
import dev.tern.client.McpClient;
import dev.tern.examples.Examples;
import dev.tern.server.McpServer;
import dev.tern.transport.http.HttpServerTransport;
import dev.tern.transport.stdio.StdioServerTransport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;

/**
 * A real server with its transports reports to the OpenTelemetry observer: the spans, metrics and access log lines
 * of requests sent over Streamable HTTP (both eras), WebSocket and stdio.
 */
class WiredServerTest {
    private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String PARENT_ID = "00f067aa0ba902b7";
    private static final String TRACEPARENT = "00-" + TRACE_ID + "-" + PARENT_ID + "-01";
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    private final List<String> accessLog = new CopyOnWriteArrayList<>();
    private final Fixture fixture = new Fixture(AccessLog.to(accessLog::add));
    private McpServer server;
    private HttpServerTransport http;

    @AfterEach
    void stop() {
        if (http != null) {
            http.close();
        }
        if (server != null) {
            server.close();
        }
        fixture.close();
    }

    private URI startHttp() throws InterruptedException {
        server = Examples.create("user-directory", (path, description, handler) -> {
        }, b -> b.observer(fixture.observer));
        http = HttpServerTransport.builder(server).host("127.0.0.1").port(0).build().start();
        return URI.create(http.url());
    }

    @Test
    void aStatelessToolCallIsAServerSpanWhoseParentIsTheContextInItsMeta() throws Exception {
        URI endpoint = startHttp();

        HttpResponse<String> reply = post(endpoint, null, null, """
                {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_user","arguments":{"id":"7"},
                 "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",
                 "io.modelcontextprotocol/clientCapabilities":{},"traceparent":"%s"}}}""".formatted(TRACEPARENT),
                "tools/call", "get_user");

        assertThat(reply.statusCode()).as(reply.body()).isEqualTo(200);
        SpanData span = onlySpan();
        assertThat(span.getName()).isEqualTo("tools/call get_user");
        assertThat(span.getKind()).isEqualTo(SpanKind.SERVER);
        assertThat(span.getTraceId()).isEqualTo(TRACE_ID);
        assertThat(span.getParentSpanId()).isEqualTo(PARENT_ID);
        assertThat(attribute(span, "mcp.method.name")).isEqualTo("tools/call");
        assertThat(attribute(span, "gen_ai.tool.name")).isEqualTo("get_user");
        assertThat(attribute(span, "mcp.protocol.version")).isEqualTo("2026-07-28");
        assertThat(attribute(span, "jsonrpc.request.id")).isEqualTo("1");
        assertThat(attribute(span, "network.transport")).isEqualTo("tcp");
        assertThat(attribute(span, "network.protocol.version")).isEqualTo("1.1");
        assertThat(attribute(span, "client.address")).isEqualTo("127.0.0.1");
        assertThat(attribute(span, "tern.mcp.era")).isEqualTo("stateless");
        assertThat(span.getEvents()).extracting(EventData::getName).contains("parse", "queue", "exec", "ser");

        assertThat(Fixture.sample(fixture.metricsText(), "mcp_server_operation_duration_seconds_count",
                "mcp_method_name=\"tools/call\"", "gen_ai_tool_name=\"get_user\"")).isEqualTo(1);
        assertThat(accessLog).singleElement().satisfies(line -> assertThat(line)
                .contains("\"method\":\"tools/call\"", "\"target\":\"get_user\"", "\"outcome\":\"ok\"", TRACE_ID));
    }

    @Test
    void theServerSpanOfATernClientCallIsAChildOfTheClientSpanPutInTheMeta() throws Exception {
        URI endpoint = startHttp();
        try (McpClient client = McpClient.http(endpoint).era(Era.MODERN)
                .tracer(fixture.observability.client().tracer()).build()) {
            assertThat(client.callTool("get_user", Map.of("id", "7")).get(20, TimeUnit.SECONDS).isError()).isNotEqualTo(Boolean.TRUE);
        }

        SpanData clientSpan = awaitSpan(SpanKind.CLIENT);
        SpanData serverSpan = awaitSpan(SpanKind.SERVER);
        assertThat(clientSpan.getName()).isEqualTo("tools/call get_user");
        assertThat(serverSpan.getName()).isEqualTo("tools/call get_user");
        assertThat(serverSpan.getTraceId()).isEqualTo(clientSpan.getTraceId());
        assertThat(serverSpan.getParentSpanId()).isEqualTo(clientSpan.getSpanId());
    }

    @Test
    void aToolCallOverWebSocketIsAServerSpanUnderTheClientSpanInItsMeta() throws Exception {
        startHttp();
        try (McpClient client = McpClient.webSocket(URI.create(http.webSocketUrl())).era(Era.MODERN)
                .tracer(fixture.observability.client().tracer()).build()) {
            assertThat(client.callTool("get_user", Map.of("id", "7")).get(20, TimeUnit.SECONDS).isError()).isNotEqualTo(Boolean.TRUE);
        }

        SpanData clientSpan = awaitSpan(SpanKind.CLIENT);
        SpanData serverSpan = awaitSpan(SpanKind.SERVER);
        assertThat(serverSpan.getName()).isEqualTo("tools/call get_user");
        assertThat(serverSpan.getParentSpanId()).isEqualTo(clientSpan.getSpanId());
        assertThat(attribute(serverSpan, "network.transport")).isEqualTo("tcp");
        assertThat(attribute(serverSpan, "network.protocol.name")).isEqualTo("websocket");
        assertThat(attribute(serverSpan, "client.address")).isEqualTo("127.0.0.1");
        assertThat(Fixture.sample(fixture.metricsText(), "mcp_server_operation_duration_seconds_count",
                "network_protocol_name=\"websocket\"", "mcp_method_name=\"tools/call\"")).isEqualTo(1);
    }

    @Test
    void anHttpTraceparentIsTheParentWhenTheMetaHasNone() throws Exception {
        URI endpoint = startHttp();

        post(endpoint, TRACEPARENT, null, """
                {"jsonrpc":"2.0","id":"a","method":"tools/list","params":{
                 "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",
                 "io.modelcontextprotocol/clientCapabilities":{}}}}""", "tools/list", null);

        SpanData span = onlySpan();
        assertThat(span.getName()).isEqualTo("tools/list");
        assertThat(span.getParentSpanId()).isEqualTo(PARENT_ID);
        assertThat(attribute(span, "jsonrpc.request.id")).isEqualTo("a");
    }

    @Test
    void aToolCallInALegacySessionCarriesTheSessionIdAndTheSessionIsMeasuredWhenItEnds() throws Exception {
        URI endpoint = startHttp();
        HttpResponse<String> init = post(endpoint, null, null, """
                {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",
                 "capabilities":{},"clientInfo":{"name":"test","version":"1"}}}""", null, null);
        String session = init.headers().firstValue("mcp-session-id").orElseThrow();
        post(endpoint, null, session, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", null, null);
        HttpResponse<String> call = post(endpoint, null, session, """
                {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_user","arguments":{"id":"9"}}}""",
                null, null);
        assertThat(call.statusCode()).as(call.body()).isEqualTo(200);
        assertThat(Fixture.sample(fixture.metricsText(), "tern_server_sessions_active")).isEqualTo(1);

        CLIENT.send(HttpRequest.newBuilder(endpoint).DELETE().header("Mcp-Session-Id", session)
                .header("MCP-Protocol-Version", "2025-11-25").build(), HttpResponse.BodyHandlers.discarding());

        SpanData span = fixture.spans.getFinishedSpanItems().stream()
                .filter(s -> s.getName().equals("tools/call get_user")).findFirst().orElseThrow();
        assertThat(attribute(span, "mcp.session.id")).isEqualTo(session);
        assertThat(attribute(span, "mcp.protocol.version")).isEqualTo("2025-11-25");
        assertThat(attribute(span, "tern.mcp.era")).isEqualTo("session");
        String metrics = fixture.metricsText();
        assertThat(Fixture.sample(metrics, "mcp_server_session_duration_seconds_count",
                "mcp_protocol_version=\"2025-11-25\"")).isEqualTo(1);
        assertThat(Fixture.sample(metrics, "tern_server_sessions_active")).isEqualTo(0);
    }

    @Test
    void aToolCallOverStdioIsASpanOverAPipe() throws Exception {
        server = Examples.create("user-directory", (path, description, handler) -> {
        }, b -> b.observer(fixture.observer));
        String line = """
                {"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"get_user","arguments":{"id":"3"},\
                "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",\
                "io.modelcontextprotocol/clientCapabilities":{},"traceparent":"%s"}}}
                """.formatted(TRACEPARENT);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        StdioServerTransport.builder(server).input(new ByteArrayInputStream(line.getBytes(StandardCharsets.UTF_8)))
                .output(out).build().serve();

        assertThat(out.toString(StandardCharsets.UTF_8)).contains("\"id\":5");
        SpanData span = onlySpan();
        assertThat(span.getName()).isEqualTo("tools/call get_user");
        assertThat(span.getParentSpanId()).isEqualTo(PARENT_ID);
        assertThat(attribute(span, "network.transport")).isEqualTo("pipe");
        assertThat(attribute(span, "jsonrpc.request.id")).isEqualTo("5");
    }

    /** The first finished span of {@code kind}, waiting for it a few seconds. */
    private SpanData awaitSpan(SpanKind kind) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < deadline) {
            for (SpanData span : fixture.spans.getFinishedSpanItems()) {
                if (span.getKind() == kind) {
                    return span;
                }
            }
            Thread.sleep(10);
        }
        throw new AssertionError("no " + kind + " span in " + fixture.spans.getFinishedSpanItems());
    }

    private SpanData onlySpan() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (fixture.spans.getFinishedSpanItems().isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(fixture.spans.getFinishedSpanItems()).hasSize(1);
        return fixture.spans.getFinishedSpanItems().get(0);
    }

    private static String attribute(SpanData span, String key) {
        return span.getAttributes().get(AttributeKey.stringKey(key));
    }

    private static HttpResponse<String> post(URI endpoint, String traceparent, String session, String body,
            String method, String name) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(endpoint)
                .header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (method != null) {
            b.header("MCP-Protocol-Version", "2026-07-28").header("Mcp-Method", method);
        }
        if (name != null) {
            b.header("Mcp-Name", name);
        }
        if (traceparent != null) {
            b.header("traceparent", traceparent);
        }
        if (session != null) {
            b.header("Mcp-Session-Id", session).header("MCP-Protocol-Version", "2025-11-25");
        }
        return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
