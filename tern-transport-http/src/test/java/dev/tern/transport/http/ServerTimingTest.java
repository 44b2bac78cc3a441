package dev.tern.transport.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpClient;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.tern.protocol.Json;
import dev.tern.protocol.model.CallToolResult;
import dev.tern.server.McpServer;
import dev.tern.server.ToolSpec;

/** The {@code Server-Timing} split of a request, when asked for: parse, queue, exec and ser, in both eras. */
class ServerTimingTest {
    private static final Pattern SPLIT = Pattern.compile(
            "parse;dur=(\\d+\\.\\d{3}), queue;dur=(\\d+\\.\\d{3}), exec;dur=(\\d+\\.\\d{3}), ser;dur=(\\d+\\.\\d{3})");

    private McpServer server;

    @BeforeEach
    void start() {
        server = McpServer.builder()
                .tool(ToolSpec.builder("nap").description("Sleeps 40 ms.").handler((ctx, args) -> {
                    Thread.sleep(40);
                    return CallToolResult.text("rested");
                }).build())
                .build();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private static double execMillis(Mcp.Reply reply) {
        String header = reply.headers().firstValue("server-timing").orElseThrow();
        Matcher m = SPLIT.matcher(header);
        assertThat(m.matches()).as(header).isTrue();
        return Double.parseDouble(m.group(3));
    }

    @Test
    void bothErasReportTheSplitWhenAsked() throws InterruptedException {
        try (HttpServerTransport transport = HttpServerTransport.builder(server).port(0).serverTiming(true).build().start();
                Mcp mcp = new Mcp(transport, HttpClient.Version.HTTP_1_1)) {
            Mcp.Reply modern = mcp.modern("tools/call", Mcp.toolCall("nap", null));
            assertThat(modern.status()).isEqualTo(200);
            assertThat(execMillis(modern)).as("the handler slept 40 ms").isGreaterThanOrEqualTo(40.0);

            String session = mcp.initialize(Mcp.LEGACY);
            Map<String, String> headers = new LinkedHashMap<>();
            headers.put("Mcp-Session-Id", session);
            headers.put("MCP-Protocol-Version", Mcp.LEGACY);
            Mcp.Reply legacy = mcp.post(Mcp.request(5, "tools/call", Mcp.toolCall("nap", null)), headers);
            assertThat(legacy.status()).isEqualTo(200);
            assertThat(execMillis(legacy)).isGreaterThanOrEqualTo(40.0);
            assertThat(Json.mapper().readTree(legacy.body()).path("result").path("content").get(0).path("text")
                    .asString()).isEqualTo("rested");
        }
    }

    @Test
    void offByDefault() throws InterruptedException {
        try (HttpServerTransport transport = HttpServerTransport.builder(server).port(0).build().start();
                Mcp mcp = new Mcp(transport, HttpClient.Version.HTTP_1_1)) {
            Mcp.Reply modern = mcp.modern("tools/call", Mcp.toolCall("nap", null));
            assertThat(modern.status()).isEqualTo(200);
            assertThat(modern.headers().firstValue("server-timing")).isEmpty();
        }
    }
}
