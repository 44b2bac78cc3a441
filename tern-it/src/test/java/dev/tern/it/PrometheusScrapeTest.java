package dev.tern.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.tern.protocol.Json;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import tools.jackson.databind.JsonNode;

/**
 * A real Prometheus scrapes {@code tern serve --metrics} at {@code /metrics} on the main port, and a PromQL query
 * through its HTTP API counts exactly the {@code tools/call get_user} requests the test made.
 */
class PrometheusScrapeTest {
    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private static final int CALLS = 7;

    @TempDir
    Path dir;

    @Test
    void prometheusScrapingTernCountsTheToolCallsTheTestMade() throws Exception {
        String prometheus = prometheusBinary();
        try (TernProcess tern = TernProcess.http("user-directory", "--metrics")) {
            URI endpoint = URI.create(tern.url());
            for (int i = 0; i < CALLS; i++) {
                HttpResponse<String> reply = callGetUser(endpoint, i);
                assertThat(reply.statusCode()).as(reply.body()).isEqualTo(200);
                assertThat(reply.body()).contains("structuredContent");
            }
            HttpResponse<String> metrics = CLIENT.send(HttpRequest.newBuilder(endpoint.resolve("/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(metrics.statusCode()).isEqualTo(200);
            assertThat(metrics.headers().firstValue("content-type").orElse("")).startsWith("text/plain");
            assertThat(metrics.body()).contains("mcp_server_operation_duration_seconds_count");

            int port = freePort();
            Path config = dir.resolve("prometheus.yml");
            Files.writeString(config, """
                    global:
                      scrape_interval: 1s
                    scrape_configs:
                      - job_name: tern
                        metrics_path: /metrics
                        static_configs:
                          - targets: ['%s']
                    """.formatted(endpoint.getHost() + ":" + endpoint.getPort()));
            Process server = new ProcessBuilder(List.of(prometheus, "--config.file=" + config,
                    "--storage.tsdb.path=" + dir.resolve("data"), "--web.listen-address=127.0.0.1:" + port))
                    .redirectErrorStream(true).redirectOutput(dir.resolve("prometheus.log").toFile()).start();
            try {
                String query = "sum(mcp_server_operation_duration_seconds_count{mcp_method_name=\"tools/call\","
                        + "gen_ai_tool_name=\"get_user\"})";
                double count = awaitValue(port, query, CALLS);
                assertThat(count).as("Prometheus log:\n%s", Files.readString(dir.resolve("prometheus.log")))
                        .isEqualTo(CALLS);
            } finally {
                server.destroy();
                if (!server.waitFor(10, TimeUnit.SECONDS)) {
                    server.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            }
        }
    }

    /** The query's value once Prometheus has it equal to {@code expected}, or the last value seen after 60 s. */
    private static double awaitValue(int port, String query, double expected) throws Exception {
        URI uri = URI.create("http://127.0.0.1:" + port + "/api/v1/query?query="
                + URLEncoder.encode(query, StandardCharsets.UTF_8));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        double last = Double.NaN;
        while (System.nanoTime() < deadline) {
            try {
                HttpResponse<String> r = CLIENT.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).build(),
                        HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    JsonNode result = Json.mapper().readTree(r.body()).path("data").path("result");
                    if (result.size() == 1) {
                        last = Double.parseDouble(result.get(0).path("value").get(1).stringValue());
                        if (last == expected) {
                            return last;
                        }
                    }
                }
            } catch (IOException notYetListening) {
                // Prometheus is still starting
            }
            Thread.sleep(250);
        }
        return last;
    }

    private static HttpResponse<String> callGetUser(URI endpoint, int i) throws IOException, InterruptedException {
        String body = """
                {"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"get_user","arguments":{"id":"%d"},
                 "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",
                 "io.modelcontextprotocol/clientCapabilities":{}}}}""".formatted(i + 1, i + 1);
        return CLIENT.send(HttpRequest.newBuilder(endpoint)
                .header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream")
                .header("MCP-Protocol-Version", "2026-07-28")
                .header("Mcp-Method", "tools/call")
                .header("Mcp-Name", "get_user")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The Prometheus binary: TERN_PROMETHEUS, or prometheus on the PATH; fails naming the script that installs it. */
    static String prometheusBinary() {
        String configured = System.getenv("TERN_PROMETHEUS");
        if (configured != null && Files.isExecutable(Path.of(configured))) {
            return configured;
        }
        for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            Path candidate = Path.of(dir, "prometheus");
            if (Files.isExecutable(candidate)) {
                return candidate.toString();
            }
        }
        throw new AssertionError("No Prometheus server found: run bin/install-prometheus.sh (or set TERN_PROMETHEUS)");
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
