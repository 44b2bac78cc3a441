package dev.tern.observability;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.tern.protocol.Json;
import dev.tern.protocol.McpException;
import dev.tern.protocol.model.CallToolResult;
import dev.tern.server.McpServer;
import dev.tern.server.TaskSupport;
import dev.tern.server.ToolSpec;
import dev.tern.transport.http.HttpServerTransport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.trace.data.SpanData;

/**
 * A task-augmented {@code tools/call} is a server span covering the request, and the task's run is a span of its own,
 * a child of that request, carrying the task's id and terminal status.
 */
class TaskSpanTest {
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    private final Fixture fixture = new Fixture();
    private final CountDownLatch release = new CountDownLatch(1);
    private McpServer server;
    private HttpServerTransport http;

    @AfterEach
    void stop() {
        release.countDown();
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
                .tool(ToolSpec.builder("report").description("Writes a report when let go")
                        .taskSupport(TaskSupport.OPTIONAL)
                        .handler((ctx, args) -> {
                            release.await();
                            // A span the handler starts is a child of the task's span.
                            Span inner = fixture.observability.openTelemetry().getTracer("test").spanBuilder("render")
                                    .startSpan();
                            inner.end();
                            return CallToolResult.text("report ready");
                        })
                        .build())
                .tool(ToolSpec.builder("broken").description("Fails as a task")
                        .taskSupport(TaskSupport.OPTIONAL)
                        .handler((ctx, args) -> {
                            throw McpException.invalidParams("Invalid params: nothing to do");
                        })
                        .build())
                .build();
        http = HttpServerTransport.builder(server).host("127.0.0.1").port(0).build().start();
        return URI.create(http.url());
    }

    @Test
    void aTaskRunIsASpanChildOfTheRequestThatCreatedItEndingWithItsStatus() throws Exception {
        URI endpoint = start();
        String session = initialize(endpoint);

        HttpResponse<String> created = post(endpoint, session, """
                {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"report","arguments":{},
                 "task":{"ttl":60000}}}""");

        assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
        String taskId = Json.mapper().readTree(created.body()).path("result").path("task").path("taskId").stringValue();
        assertThat(taskId).isNotBlank();
        SpanData request = span("tools/call report");
        assertThat(request.getKind()).isEqualTo(SpanKind.SERVER);
        assertThat(attribute(request, "jsonrpc.request.id")).isEqualTo("2");
        assertThat(attribute(request, "tern.mcp.task.id")).isEqualTo(taskId);
        assertThat(names()).doesNotContain("task tools/call report");

        release.countDown();
        SpanData run = span("task tools/call report");
        assertThat(run.getKind()).isEqualTo(SpanKind.INTERNAL);
        assertThat(run.getTraceId()).isEqualTo(request.getTraceId());
        assertThat(run.getParentSpanId()).isEqualTo(request.getSpanId());
        assertThat(attribute(run, "tern.mcp.task.id")).isEqualTo(taskId);
        assertThat(attribute(run, "tern.mcp.task.status")).isEqualTo("completed");
        assertThat(attribute(run, "gen_ai.tool.name")).isEqualTo("report");
        assertThat(attribute(run, "mcp.session.id")).isEqualTo(session);
        assertThat(attribute(run, "error.type")).isNull();
        assertThat(span("render").getParentSpanId()).isEqualTo(run.getSpanId());
        assertThat(Fixture.sample(fixture.metricsText(), "mcp_server_operation_duration_seconds_count",
                "gen_ai_tool_name=\"report\"")).isEqualTo(1);
    }

    @Test
    void aFailedTaskRunIsAnErrorSpanWithItsCode() throws Exception {
        URI endpoint = start();
        String session = initialize(endpoint);

        HttpResponse<String> created = post(endpoint, session, """
                {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"broken","arguments":{},
                 "task":{}}}""");

        assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
        assertThat(attribute(span("tools/call broken"), "error.type")).isNull();
        SpanData run = span("task tools/call broken");
        assertThat(attribute(run, "tern.mcp.task.status")).isEqualTo("failed");
        assertThat(attribute(run, "error.type")).isEqualTo("-32602");
        assertThat(run.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(run.getStatus().getDescription()).isEqualTo("Invalid params: nothing to do");
    }

    private String initialize(URI endpoint) throws Exception {
        HttpResponse<String> init = post(endpoint, null, """
                {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",
                 "capabilities":{"tasks":{}},"clientInfo":{"name":"test","version":"1"}}}""");
        assertThat(init.statusCode()).as(init.body()).isEqualTo(200);
        String session = init.headers().firstValue("mcp-session-id").orElseThrow();
        post(endpoint, session, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
        return session;
    }

    private List<String> names() {
        return fixture.spans.getFinishedSpanItems().stream().map(SpanData::getName).toList();
    }

    /** The finished span of this name, waited for up to five seconds. */
    private SpanData span(String name) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < deadline) {
            for (SpanData s : fixture.spans.getFinishedSpanItems()) {
                if (s.getName().equals(name)) {
                    return s;
                }
            }
            Thread.sleep(10);
        }
        throw new AssertionError("no span " + name + " in " + names());
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
            b.header("Mcp-Session-Id", session).header("MCP-Protocol-Version", "2025-11-25");
        }
        return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
