package dev.tern.observability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.tern.protocol.CodecLimits;
import dev.tern.protocol.model.CallToolResult;
import dev.tern.server.McpServer;
import dev.tern.server.ToolSpec;
import dev.tern.transport.stdio.StdioServerTransport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.trace.data.SpanData;

/**
 * Over stdio, lines refused before dispatch (bad JSON, an invalid request, a line over the size limit, an unknown
 * method) are observed as on HTTP, as operations of the method {@code unknown} with their JSON-RPC code, and
 * notifications are operations of their own.
 */
class StdioRefusalsTest {
    private final List<String> accessLog = new CopyOnWriteArrayList<>();
    private final Fixture fixture = new Fixture(AccessLog.to(accessLog::add));
    private McpServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        fixture.close();
    }

    @Test
    void refusedLinesAndNotificationsAreObservedOverAPipe() throws Exception {
        server = McpServer.builder().observer(fixture.observer)
                .tool(ToolSpec.builder("echo").description("Says hello")
                        // runs on the reading thread, so its reply is written before the input's end stops serving
                        .nonBlocking(true)
                        .handler((ctx, args) -> CallToolResult.text("hello"))
                        .build())
                .build();
        String input = String.join("\n",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
                        + "\"capabilities\":{},\"clientInfo\":{\"name\":\"test\",\"version\":\"1\"}}}",
                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
                "{\"jsonrpc\":\"2.0\",",
                "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":7}",
                "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"pad\":\""
                        + "x".repeat(2048) + "\"}}}",
                "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"no/such/method\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{}}}",
                "");
        ByteArrayOutputStream out = new ByteArrayOutputStream();

        StdioServerTransport.builder(server).limits(CodecLimits.DEFAULT.withMaxMessageBytes(1024))
                .input(new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8))).output(out).build().serve();

        String replies = out.toString(StandardCharsets.UTF_8);
        assertThat(replies).contains("-32700", "-32600", "-32601", "\"id\":5");
        List<SpanData> spans = fixture.spans.getFinishedSpanItems();
        assertThat(spans).allSatisfy(s -> assertThat(attribute(s, "network.transport")).isEqualTo("pipe"));
        assertThat(spans).extracting(SpanData::getName).containsExactlyInAnyOrder("initialize",
                "notifications/initialized", "unknown", "unknown", "unknown", "unknown", "tools/call echo");
        assertThat(spans).filteredOn(s -> s.getName().equals("unknown"))
                .extracting(s -> attribute(s, "error.type"))
                .containsExactlyInAnyOrder("-32700", "-32600", "-32600", "-32601");
        SpanData notification = spans.stream().filter(s -> s.getName().equals("notifications/initialized"))
                .findFirst().orElseThrow();
        assertThat(attribute(notification, "mcp.protocol.version")).isEqualTo("2025-11-25");
        assertThat(attribute(notification, "error.type")).isNull();
        SpanData unknownMethod = spans.stream().filter(s -> "-32601".equals(attribute(s, "error.type")))
                .findFirst().orElseThrow();
        assertThat(attribute(unknownMethod, "jsonrpc.request.id")).isEqualTo("4");

        String metrics = fixture.metricsText();
        String pipe = "network_transport=\"pipe\"";
        assertThat(Fixture.sample(metrics, "mcp_server_operation_duration_seconds_count", pipe,
                "mcp_method_name=\"unknown\"", "error_type=\"-32700\"")).isEqualTo(1);
        assertThat(Fixture.sample(metrics, "mcp_server_operation_duration_seconds_count", pipe,
                "mcp_method_name=\"unknown\"", "error_type=\"-32600\"")).isEqualTo(2);
        assertThat(Fixture.sample(metrics, "mcp_server_operation_duration_seconds_count", pipe,
                "mcp_method_name=\"unknown\"", "error_type=\"-32601\"")).isEqualTo(1);
        assertThat(Fixture.sample(metrics, "mcp_server_operation_duration_seconds_count", pipe,
                "mcp_method_name=\"notifications/initialized\"")).isEqualTo(1);
        assertThat(accessLog).hasSize(7);
    }

    private static String attribute(SpanData span, String key) {
        return span.getAttributes().get(AttributeKey.stringKey(key));
    }
}
