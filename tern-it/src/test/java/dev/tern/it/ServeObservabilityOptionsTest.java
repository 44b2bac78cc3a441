package dev.tern.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.tern.protocol.Json;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import tools.jackson.databind.JsonNode;

/**
 * {@code tern serve --metrics-port 0 --traces --access-log FILE}: metrics on a port of their own (and not on the main
 * one), and one JSON access log line per MCP request carrying the trace of the context the request put in its
 * {@code _meta}.
 */
class ServeObservabilityOptionsTest {
    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private static final String TRACE_ID = "0af7651916cd43dd8448eb211c80319c";

    @TempDir
    Path dir;

    @Test
    void metricsOnAPortOfTheirOwnAndAnAccessLogLinePerRequestWithItsTraceId() throws Exception {
        Path log = dir.resolve("access.jsonl");
        try (TernProcess tern = TernProcess.http("user-directory", "--metrics-port", "0", "--traces",
                "--access-log", log.toString())) {
            URI endpoint = URI.create(tern.url());
            HttpResponse<String> reply = CLIENT.send(HttpRequest.newBuilder(endpoint)
                    .header("Content-Type", "application/json")
                    .header("Accept", "application/json, text/event-stream")
                    .header("MCP-Protocol-Version", "2026-07-28")
                    .header("Mcp-Method", "tools/call")
                    .header("Mcp-Name", "get_user")
                    .POST(HttpRequest.BodyPublishers.ofString("""
                            {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_user",
                             "arguments":{"id":"42"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",
                             "io.modelcontextprotocol/clientCapabilities":{},
                             "traceparent":"00-%s-b7ad6b7169203331-01"}}}""".formatted(TRACE_ID)))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(reply.statusCode()).as(reply.body()).isEqualTo(200);

            Matcher m = Pattern.compile("metrics at (http://\\S+)").matcher(tern.stderr());
            assertThat(m.find()).as(tern.stderr()).isTrue();
            URI metrics = URI.create(m.group(1));
            assertThat(metrics.getPort()).isNotEqualTo(endpoint.getPort());
            HttpResponse<String> scraped = CLIENT.send(HttpRequest.newBuilder(metrics).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(scraped.statusCode()).isEqualTo(200);
            assertThat(scraped.body()).contains("mcp_server_operation_duration_seconds_count{")
                    .contains("gen_ai_tool_name=\"get_user\"");
            HttpResponse<String> mainPort = CLIENT.send(HttpRequest.newBuilder(endpoint.resolve("/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(mainPort.statusCode()).isEqualTo(404);

            List<String> lines = awaitLines(log);
            assertThat(lines).hasSize(1);
            JsonNode line = Json.mapper().readTree(lines.get(0));
            assertThat(line.path("method").stringValue()).isEqualTo("tools/call");
            assertThat(line.path("target").stringValue()).isEqualTo("get_user");
            assertThat(line.path("outcome").stringValue()).isEqualTo("ok");
            assertThat(line.path("trace_id").stringValue()).isEqualTo(TRACE_ID);
            assertThat(line.path("duration_ms").isNumber()).isTrue();
        }
    }

    private static List<String> awaitLines(Path log) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            if (Files.exists(log) && !Files.readAllLines(log).isEmpty()) {
                return Files.readAllLines(log);
            }
            Thread.sleep(50);
        }
        return List.of();
    }
}
