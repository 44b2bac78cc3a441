package dev.tern.observability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.tern.protocol.Json;
import dev.tern.protocol.model.CallToolResult;
import dev.tern.server.McpServer;
import dev.tern.server.ToolSpec;
import dev.tern.transport.stdio.StdioServerTransport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.trace.data.SpanData;

import tools.jackson.databind.JsonNode;

/**
 * A request the server sends its client while serving a tool call ({@code roots/list} here) is a CLIENT span, child of
 * the tool call's span, ended when the client answers.
 */
class OutgoingRequestSpanTest {
    private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String TRACEPARENT = "00-" + TRACE_ID + "-00f067aa0ba902b7-01";

    private final Fixture fixture = new Fixture();
    private McpServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        fixture.close();
    }

    @Test
    void rootsListAskedByAToolIsAClientSpanUnderTheToolCallsSpan() throws Exception {
        SpanData call = callAndAnswer("{\"roots\":[{\"uri\":\"file:///srv\",\"name\":\"srv\"}]}");

        SpanData roots = span("roots/list");
        assertThat(roots.getKind()).isEqualTo(SpanKind.CLIENT);
        assertThat(roots.getTraceId()).isEqualTo(TRACE_ID);
        assertThat(roots.getParentSpanId()).isEqualTo(call.getSpanId());
        assertThat(roots.getAttributes().get(AttributeKey.stringKey("mcp.method.name"))).isEqualTo("roots/list");
        assertThat(roots.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
        assertThat(roots.getEndEpochNanos()).isLessThanOrEqualTo(call.getEndEpochNanos());
        assertThat(roots.getStartEpochNanos()).isGreaterThanOrEqualTo(call.getStartEpochNanos());
    }

    @Test
    void anErrorTheClientAnswersWithEndsTheClientSpanAsAnError() throws Exception {
        callAndAnswer(null);

        SpanData roots = span("roots/list");
        assertThat(roots.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(roots.getAttributes().get(AttributeKey.stringKey("error.type"))).isEqualTo("-32601");
    }

    /** Calls the tool in a legacy stdio session and answers its roots/list with {@code result} (an error if null). */
    private SpanData callAndAnswer(String result) throws Exception {
        server = McpServer.builder().observer(fixture.observer)
                .tool(ToolSpec.builder("count_roots").description("Counts the client's roots")
                        .handler((ctx, args) -> {
                            try {
                                return CallToolResult.text(Integer.toString(ctx.roots().size()));
                            } catch (RuntimeException e) {
                                return CallToolResult.text("no roots: " + e.getMessage());
                            }
                        })
                        .build())
                .build();
        PipedOutputStream toServer = new PipedOutputStream();
        PipedInputStream serverIn = new PipedInputStream(toServer, 1 << 16);
        PipedOutputStream serverOut = new PipedOutputStream();
        BufferedReader fromServer = new BufferedReader(new InputStreamReader(new PipedInputStream(serverOut, 1 << 16),
                StandardCharsets.UTF_8));
        StdioServerTransport transport = StdioServerTransport.builder(server).input(serverIn).output(serverOut).build();
        Thread serving = Thread.ofVirtual().start(() -> {
            try {
                transport.serve();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        try {
            send(toServer, """
                    {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",\
                    "capabilities":{"roots":{}},"clientInfo":{"name":"test","version":"1"}}}""");
            assertThat(readUntil(fromServer, "\"id\":1")).contains("serverInfo");
            send(toServer, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
            send(toServer, """
                    {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"count_roots","arguments":{},\
                    "_meta":{"traceparent":"%s"}}}""".formatted(TRACEPARENT));
            JsonNode ask = Json.mapper().readTree(readUntil(fromServer, "roots/list"));
            String id = ask.get("id").toString();
            send(toServer, result != null
                    ? "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":" + result + "}"
                    : "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"error\":{\"code\":-32601,\"message\":\"no roots here\"}}");
            String answer = readUntil(fromServer, "\"id\":2");
            assertThat(answer).contains(result != null ? "\"text\":\"1\"" : "no roots");
        } finally {
            toServer.close();
            serving.join(TimeUnit.SECONDS.toMillis(10));
        }
        return span("tools/call count_roots");
    }

    private static void send(OutputStream out, String line) throws Exception {
        out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    private static String readUntil(BufferedReader in, String marker) throws Exception {
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            if (line.contains(marker)) {
                return line;
            }
        }
        throw new AssertionError("the server stopped before sending " + marker);
    }

    private SpanData span(String name) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < deadline) {
            List<SpanData> spans = fixture.spans.getFinishedSpanItems();
            for (SpanData s : spans) {
                if (s.getName().equals(name)) {
                    return s;
                }
            }
            Thread.sleep(10);
        }
        throw new AssertionError("no span " + name + " in " + fixture.spans.getFinishedSpanItems());
    }
}
