package dev.tern.observability;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import dev.tern.protocol.model.CallToolResult;
import dev.tern.server.McpServer;
import dev.tern.server.ToolSpec;
import dev.tern.transport.http.HttpServerTransport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.trace.data.SpanData;

/**
 * Requests the HTTP transport answers without the server (refused before dispatch), notifications, and requests
 * cancelled before their response are observed too: each is a span, a count and an access log line.
 */
class AnsweredWithoutTheServerTest {
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    private static final String MODERN_META = "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
            + "\"io.modelcontextprotocol/clientCapabilities\":{}}";

    private final List<String> accessLog = new CopyOnWriteArrayList<>();
    private final Fixture fixture = new Fixture(AccessLog.to(accessLog::add));
    private final CountDownLatch started = new CountDownLatch(1);
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

    private URI start(Consumer<HttpServerTransport.Builder> options) throws InterruptedException {
        server = McpServer.builder().observer(fixture.observer)
                .tool(ToolSpec.builder("wait").description("Waits until the test lets it go")
                        .handler((ctx, args) -> {
                            started.countDown();
                            release.await();
                            return CallToolResult.text("done");
                        })
                        .build())
                .build();
        HttpServerTransport.Builder b = HttpServerTransport.builder(server).host("127.0.0.1").port(0);
        options.accept(b);
        http = b.build().start();
        return URI.create(http.url());
    }

    @Test
    void aBodyThatIsNotJsonIsAParseErrorOfAnUnknownMethod() throws Exception {
        URI endpoint = start(b -> {
        });

        HttpResponse<String> reply = post(endpoint, "application/json", "{\"jsonrpc\":\"2.0\",", null);

        assertThat(reply.statusCode()).isEqualTo(400);
        SpanData span = span("unknown");
        assertThat(attribute(span, "error.type")).isEqualTo("-32700");
        assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(attribute(span, "client.address")).isEqualTo("127.0.0.1");
        assertThat(Fixture.sample(fixture.metricsText(), "mcp_server_operation_duration_seconds_count",
                "mcp_method_name=\"unknown\"", "error_type=\"-32700\"")).isEqualTo(1);
        assertThat(accessLog).singleElement().satisfies(line -> assertThat(line).contains("\"outcome\":\"-32700\""));
    }

    @Test
    void aBodyOfAnotherMediaTypeIsRefusedBeforeItIsReadAndCounted() throws Exception {
        URI endpoint = start(b -> {
        });

        HttpResponse<String> reply = post(endpoint, "text/plain", "hello", null);

        assertThat(reply.statusCode()).isEqualTo(415);
        assertThat(attribute(span("unknown"), "error.type")).isEqualTo("-32600");
        assertThat(Fixture.sample(fixture.metricsText(), "mcp_server_operation_duration_seconds_count",
                "error_type=\"-32600\"")).isEqualTo(1);
    }

    @Test
    void aRequestShedBecauseTheServerIsFullIsCounted() throws Exception {
        URI endpoint = start(b -> b.limits(l -> l.maxInFlight(1)));
        CompletableFuture<HttpResponse<String>> busy = CLIENT.sendAsync(request(endpoint, "application/json",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"wait\",\"arguments\":{},"
                        + MODERN_META + "}}", null).header("Mcp-Method", "tools/call").header("Mcp-Name", "wait")
                        .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(started.await(20, TimeUnit.SECONDS)).isTrue();

        HttpResponse<String> shed = post(endpoint, "application/json",
                "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{" + MODERN_META + "}}", null);

        assertThat(shed.statusCode()).isEqualTo(503);
        assertThat(attribute(span("unknown"), "error.type")).isEqualTo("-32603");
        String metrics = fixture.metricsText();
        assertThat(Fixture.sample(metrics, "tern_server_requests_shed_total")).isEqualTo(1);
        assertThat(Fixture.sample(metrics, "mcp_server_operation_duration_seconds_count", "mcp_method_name=\"unknown\"",
                "error_type=\"-32603\"")).isEqualTo(1);
        release.countDown();
        assertThat(busy.get(20, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        assertThat(span("tools/call wait").getAttributes().get(AttributeKey.stringKey("error.type"))).isNull();
    }

    @Test
    void aNotificationIsAnOperationOfItsSessionWithoutAnError() throws Exception {
        URI endpoint = start(b -> {
        });
        String session = initialize(endpoint);

        HttpResponse<String> reply = post(endpoint, "application/json",
                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", session);

        assertThat(reply.statusCode()).isEqualTo(202);
        SpanData span = span("notifications/initialized");
        assertThat(attribute(span, "mcp.method.name")).isEqualTo("notifications/initialized");
        assertThat(attribute(span, "mcp.session.id")).isEqualTo(session);
        assertThat(attribute(span, "error.type")).isNull();
        assertThat(Fixture.sample(fixture.metricsText(), "mcp_server_operation_duration_seconds_count",
                "mcp_method_name=\"notifications/initialized\"")).isEqualTo(1);
    }

    @Test
    void aRequestTheClientCancelsEndsAsCancelledThoughItGetsNoResponse() throws Exception {
        URI endpoint = start(b -> {
        });
        String session = initialize(endpoint);
        post(endpoint, "application/json", "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", session);
        CLIENT.sendAsync(request(endpoint, "application/json",
                "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"wait\",\"arguments\":{}}}",
                session).build(), HttpResponse.BodyHandlers.discarding());
        assertThat(started.await(20, TimeUnit.SECONDS)).isTrue();

        HttpResponse<String> cancel = post(endpoint, "application/json", "{\"jsonrpc\":\"2.0\","
                + "\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":7,\"reason\":\"user gave up\"}}",
                session);

        assertThat(cancel.statusCode()).isEqualTo(202);
        SpanData span = span("tools/call wait");
        assertThat(attribute(span, "error.type")).isEqualTo("cancelled");
        assertThat(span.getStatus().getDescription()).isEqualTo("user gave up");
        assertThat(attribute(span, "jsonrpc.request.id")).isEqualTo("7");
        assertThat(Fixture.sample(fixture.metricsText(), "mcp_server_operation_duration_seconds_count",
                "gen_ai_tool_name=\"wait\"", "error_type=\"cancelled\"")).isEqualTo(1);
        assertThat(span("notifications/cancelled")).isNotNull();
    }

    private String initialize(URI endpoint) throws Exception {
        HttpResponse<String> init = post(endpoint, "application/json", """
                {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",
                 "capabilities":{},"clientInfo":{"name":"test","version":"1"}}}""", null);
        assertThat(init.statusCode()).as(init.body()).isEqualTo(200);
        return init.headers().firstValue("mcp-session-id").orElseThrow();
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
        throw new AssertionError("no span " + name + " in " + fixture.spans.getFinishedSpanItems());
    }

    private static String attribute(SpanData span, String key) {
        return span.getAttributes().get(AttributeKey.stringKey(key));
    }

    private static HttpRequest.Builder request(URI endpoint, String contentType, String body, String session) {
        HttpRequest.Builder b = HttpRequest.newBuilder(endpoint)
                .header("Content-Type", contentType)
                .header("Accept", "application/json, text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (session != null) {
            b.header("Mcp-Session-Id", session).header("MCP-Protocol-Version", "2025-11-25");
        } else if (body.contains("2026-07-28")) {
            b.header("MCP-Protocol-Version", "2026-07-28");
        }
        return b;
    }

    private static HttpResponse<String> post(URI endpoint, String contentType, String body, String session)
            throws Exception {
        HttpRequest.Builder b = request(endpoint, contentType, body, session);
        if (body.contains("\"tools/list\"")) {
            b.header("Mcp-Method", "tools/list");
        }
        return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
