package dev.tern.observability;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import dev.tern.protocol.model.CallToolResult;
import dev.tern.server.McpServer;
import dev.tern.server.ToolSpec;
import dev.tern.transport.http.HttpServerTransport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.trace.data.SpanData;

/**
 * The members of a 2025-03-26 JSON-RPC batch are observed each on its own (method, target, outcome), with the POST's
 * client and session; the batch POST itself is no operation of an unknown method.
 */
class BatchMembersTest {
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

    private URI start() throws InterruptedException {
        server = McpServer.builder().observer(fixture.observer)
                .tool(ToolSpec.builder("echo").description("Says hello")
                        .handler((ctx, args) -> CallToolResult.text("hello"))
                        .build())
                .build();
        http = HttpServerTransport.builder(server).host("127.0.0.1").port(0).build().start();
        return URI.create(http.url());
    }

    @Test
    void eachMemberOfABatchIsASpanAndAMetricPointOfItsOwn() throws Exception {
        URI endpoint = start();
        String session = initialize(endpoint);
        fixture.spans.reset();

        HttpResponse<String> reply = post(endpoint, session, """
                [{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{}}},
                 {"jsonrpc":"2.0","id":3,"method":"tools/list"},
                 {"jsonrpc":"2.0","id":4,"method":"no/such/method"},
                 {"jsonrpc":"2.0","method":"notifications/roots/list_changed"},
                 42]""");

        assertThat(reply.statusCode()).as(reply.body()).isEqualTo(200);
        assertThat(reply.body()).contains("\"id\":2", "\"id\":3", "\"id\":4", "-32601", "-32600");
        SpanData call = span("tools/call echo");
        assertThat(call.getKind()).isEqualTo(SpanKind.SERVER);
        assertThat(attribute(call, "jsonrpc.request.id")).isEqualTo("2");
        assertThat(attribute(call, "gen_ai.tool.name")).isEqualTo("echo");
        assertThat(attribute(call, "mcp.session.id")).isEqualTo(session);
        assertThat(attribute(call, "mcp.protocol.version")).isEqualTo("2025-03-26");
        assertThat(attribute(call, "client.address")).isEqualTo("127.0.0.1");
        assertThat(attribute(call, "error.type")).isNull();
        assertThat(attribute(span("tools/list"), "jsonrpc.request.id")).isEqualTo("3");
        assertThat(attribute(span("notifications/roots/list_changed"), "mcp.session.id")).isEqualTo(session);
        List<SpanData> unknown = spans("unknown", 2);
        assertThat(unknown).extracting(s -> attribute(s, "error.type")).containsExactlyInAnyOrder("-32601", "-32600");
        assertThat(unknown).filteredOn(s -> "-32601".equals(attribute(s, "error.type")))
                .singleElement().satisfies(s -> assertThat(attribute(s, "jsonrpc.request.id")).isEqualTo("4"));

        String metrics = fixture.metricsText();
        assertThat(Fixture.sample(metrics, "mcp_server_operation_duration_seconds_count",
                "mcp_method_name=\"tools/call\"", "gen_ai_tool_name=\"echo\"")).isEqualTo(1);
        assertThat(Fixture.sample(metrics, "mcp_server_operation_duration_seconds_count",
                "mcp_method_name=\"tools/list\"")).isEqualTo(1);
        assertThat(Fixture.sample(metrics, "mcp_server_operation_duration_seconds_count",
                "mcp_method_name=\"notifications/roots/list_changed\"")).isEqualTo(1);
        assertThat(Fixture.sample(metrics, "mcp_server_operation_duration_seconds_count",
                "mcp_method_name=\"unknown\"", "error_type=\"-32601\"")).isEqualTo(1);
        assertThat(Fixture.sample(metrics, "mcp_server_operation_duration_seconds_count",
                "mcp_method_name=\"unknown\"", "error_type=\"-32600\"")).isEqualTo(1);
        assertThat(metrics.lines().filter(l -> l.contains("mcp_method_name=\"unknown\"")))
                .as("the batch POST is no operation of its own").allMatch(l -> l.contains("error_type="));
    }

    @Test
    void aBatchRefusedWholeIsOneRefusalOfAnUnknownMethod() throws Exception {
        URI endpoint = start();
        String session = initialize(endpoint, "2025-11-25");
        fixture.spans.reset();

        HttpResponse<String> reply = post(endpoint, session,
                "[{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"},{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}]");

        assertThat(reply.statusCode()).isEqualTo(400);
        assertThat(attribute(span("unknown"), "error.type")).isEqualTo("-32600");
        assertThat(Fixture.sample(fixture.metricsText(), "mcp_server_operation_duration_seconds_count",
                "mcp_method_name=\"unknown\"", "error_type=\"-32600\"")).isEqualTo(1);
        assertThat(fixture.spans.getFinishedSpanItems()).hasSize(1);
    }

    private String initialize(URI endpoint) throws Exception {
        return initialize(endpoint, "2025-03-26");
    }

    private String initialize(URI endpoint, String version) throws Exception {
        HttpResponse<String> init = post(endpoint, null, """
                {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"%s",
                 "capabilities":{},"clientInfo":{"name":"test","version":"1"}}}""".formatted(version));
        assertThat(init.statusCode()).as(init.body()).isEqualTo(200);
        String session = init.headers().firstValue("mcp-session-id").orElseThrow();
        post(endpoint, session, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
        return session;
    }

    private SpanData span(String name) throws InterruptedException {
        return spans(name, 1).get(0);
    }

    /** The {@code count} finished spans of this name, waited for up to five seconds. */
    private List<SpanData> spans(String name, int count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        List<SpanData> found = List.of();
        while (System.nanoTime() < deadline) {
            found = fixture.spans.getFinishedSpanItems().stream().filter(s -> s.getName().equals(name)).toList();
            if (found.size() >= count) {
                break;
            }
            Thread.sleep(10);
        }
        assertThat(found).as("spans %s in %s", name, fixture.spans.getFinishedSpanItems()).hasSize(count);
        return found;
    }

    private static String attribute(SpanData span, String key) {
        return span.getAttributes().get(AttributeKey.stringKey(key));
    }

    private static HttpResponse<String> post(URI endpoint, String session, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(endpoint)
                .header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (session != null) {
            b.header("Mcp-Session-Id", session);
        }
        return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
