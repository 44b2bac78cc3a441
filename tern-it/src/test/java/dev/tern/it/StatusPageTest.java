package dev.tern.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.tern.cli.Main;
import dev.tern.protocol.Json;

import no.nav.security.mock.oauth2.MockOAuth2Server;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import tools.jackson.databind.JsonNode;

/**
 * {@code tern serve --status}: the page loaded in real headless Chromium shows the calls the test made and, while a
 * {@code tern bench} runs, charts its load; its JSON feed counts the calls, and both are behind the same Host checks
 * and token rules as the MCP endpoint.
 */
class StatusPageTest {
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    private static final int CALLS = 5;
    /** Where the screenshot of the page is kept for a reader of the test's results. */
    private static final Path SCREENSHOT = Path.of("target", "status-page.png");
    /** The screenshot of the page taken while a bench loads the server. */
    private static final Path SCREENSHOT_UNDER_LOAD = Path.of("target", "status-page-under-load.png");
    /** The bench's requests per second: enough for every chart and row to move, little for a shared machine. */
    private static final int BENCH_RATE = 50;

    @TempDir
    Path dir;

    @Test
    void thePageInHeadlessChromiumShowsTheCallsAndTheErrorTheTestMade() throws Exception {
        String chromium = chromiumBinary();
        try (TernProcess tern = TernProcess.http("user-directory", "--status")) {
            URI endpoint = URI.create(tern.url());
            makeCalls(endpoint, null);
            awaitWholeSecondOfCalls(endpoint);
            URI page = endpoint.resolve("/status");

            String dom = chromium(chromium, "--dump-dom", page.toString());
            assertThat(dom).as(dom).contains("<p id=\"state\" class=\"ok\">updated");
            Matcher row = Pattern.compile("<tr data-method=\"tools/call\" data-target=\"get_user\">(.*?)</tr>")
                    .matcher(dom);
            assertThat(row.find()).as(dom).isTrue();
            assertThat(row.group(1)).contains("<td class=\"count\">" + CALLS + "</td>")
                    .contains("<td class=\"errors\">0</td>")
                    .containsPattern("<td class=\"p50\">[0-9.]+</td>")
                    .containsPattern("<td class=\"p99\">[0-9.]+</td>");
            Matcher failed = Pattern.compile("<tr data-method=\"tools/call\" data-target=\"no_such_tool\">(.*?)</tr>")
                    .matcher(dom);
            assertThat(failed.find()).as(dom).isTrue();
            assertThat(failed.group(1)).contains("<td class=\"count\">1</td>").contains("<td class=\"errors some\">1</td>");
            assertThat(dom).contains("<td class=\"error\">-32602</td>").contains("Unknown tool: no_such_tool");
            assertThat(dom).containsPattern("<span class=\"value\" id=\"uptime\">[0-9][^<]* s</span>")
                    .containsPattern("<span class=\"value\" id=\"sessions\">[0-9]+</span>")
                    .containsPattern("<span class=\"value\" id=\"listens\">[0-9]+</span>")
                    .containsPattern("<span class=\"value\" id=\"error-ratio\">[0-9.]+ %</span>");
            // The chart's line of requests per second rises above its baseline (y = 119) somewhere.
            Matcher points = Pattern.compile("id=\"chart-requests\" class=\"requests\" points=\"([^\"]+)\"").matcher(dom);
            assertThat(points.find()).as(dom).isTrue();
            assertThat(points.group(1).split(" ")).anyMatch(p -> Double.parseDouble(p.split(",")[1]) < 119);

            Files.createDirectories(SCREENSHOT.getParent());
            Files.deleteIfExists(SCREENSHOT);
            chromium(chromium, "--screenshot=" + SCREENSHOT.toAbsolutePath(), "--window-size=1280,1000",
                    page.toString());
            assertThat(SCREENSHOT).isNotEmptyFile();
        }
    }

    @Test
    void whileABenchRunsThePageInHeadlessChromiumChartsTheLoadOfEveryMethod() throws Exception {
        String chromium = chromiumBinary();
        try (TernProcess tern = TernProcess.http("user-directory", "--status")) {
            URI endpoint = URI.create(tern.url());
            // Bounded twice: it stops after 60 s or 3000 requests, and the test stops it as soon as it is done.
            try (TernProcess bench = TernProcess.main(Main.class, "bench", "--url", tern.url(), "--workload", "mix",
                    "--rate", Integer.toString(BENCH_RATE), "--duration", "60s", "--warmup", "0s",
                    "--max-requests", "3000", "--quiet")) {
                awaitCalls(endpoint, 3 * BENCH_RATE, bench);
                URI page = endpoint.resolve("/status");

                String dom = chromium(chromium, "--dump-dom", page.toString());
                assertThat(bench.process().isAlive()).as("the bench still runs; its stderr:%n%s", bench.stderr())
                        .isTrue();
                assertThat(dom).as(dom).contains("<p id=\"state\" class=\"ok\">updated");
                // The bench's mix: tools/call of get_user, tools/list and resources/read (of any resource).
                for (String operation : List.of("tools/call\" data-target=\"get_user", "tools/list\" data-target=\"",
                        "resources/read\" data-target=\"[^\"]*")) {
                    Matcher row = Pattern.compile("<tr data-method=\"" + operation + "\">(.*?)</tr>").matcher(dom);
                    assertThat(row.find()).as("a row of %s in%n%s", operation, dom).isTrue();
                    for (String column : List.of("count", "window", "p50", "p99", "max")) {
                        assertThat(cellValue(row.group(1), column)).as("%s %s in %s", operation, column, row.group(1))
                                .isPositive();
                    }
                    assertThat(cellValue(row.group(1), "errors")).as(row.group(1)).isZero();
                }
                assertThat(figure(dom, "rate")).as(dom).isPositive();
                // The line of requests per second stands above its baseline (y = 119) for the seconds of the bench.
                Matcher points = Pattern.compile("id=\"chart-requests\" class=\"requests\" points=\"([^\"]+)\"")
                        .matcher(dom);
                assertThat(points.find()).as(dom).isTrue();
                assertThat(points.group(1).split(" "))
                        .filteredOn(p -> Double.parseDouble(p.split(",")[1]) < 119).as(points.group(1))
                        .hasSizeGreaterThanOrEqualTo(2);

                Files.createDirectories(SCREENSHOT_UNDER_LOAD.getParent());
                Files.deleteIfExists(SCREENSHOT_UNDER_LOAD);
                chromium(chromium, "--screenshot=" + SCREENSHOT_UNDER_LOAD.toAbsolutePath(), "--window-size=1280,1000",
                        page.toString());
                assertThat(SCREENSHOT_UNDER_LOAD).isNotEmptyFile();
                assertThat(bench.process().isAlive()).as("the bench still runs; its stderr:%n%s", bench.stderr())
                        .isTrue();
            }
        }
    }

    @Test
    void theJsonFeedCountsTheCallsPerToolAndKeepsTheLatestErrors() throws Exception {
        try (TernProcess tern = TernProcess.http("user-directory", "--status")) {
            URI endpoint = URI.create(tern.url());
            makeCalls(endpoint, null);
            HttpResponse<String> feed = CLIENT.send(HttpRequest.newBuilder(endpoint.resolve("/status.json")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(feed.statusCode()).isEqualTo(200);
            assertThat(feed.headers().firstValue("content-type").orElse("")).startsWith("application/json");
            assertThat(feed.headers().firstValue("cache-control")).hasValue("no-store");
            JsonNode status = Json.mapper().readTree(feed.body());
            assertThat(status.path("uptime_seconds").asDouble()).isPositive();
            assertThat(status.path("series").path("requests").size()).isEqualTo(60);
            assertThat(status.path("gauges").path("sessions").isNumber()).as(feed.body()).isTrue();
            assertThat(status.path("gauges").path("listens").isNumber()).as(feed.body()).isTrue();
            JsonNode getUser = operation(status, "tools/call", "get_user");
            assertThat(getUser.path("count").asLong()).isEqualTo(CALLS);
            assertThat(getUser.path("errors").asLong()).isZero();
            assertThat(getUser.path("window_count").asLong()).isEqualTo(CALLS);
            assertThat(getUser.path("p50_ms").asDouble()).isPositive();
            assertThat(getUser.path("p99_ms").asDouble()).isGreaterThanOrEqualTo(getUser.path("p50_ms").asDouble());
            assertThat(operation(status, "tools/call", "no_such_tool").path("errors").asLong()).isEqualTo(1);
            JsonNode error = status.path("recent_errors").path(0);
            assertThat(error.path("method").stringValue()).isEqualTo("tools/call");
            assertThat(error.path("target").stringValue()).isEqualTo("no_such_tool");
            assertThat(error.path("error").stringValue()).isEqualTo("-32602");
            assertThat(error.path("message").stringValue()).contains("no_such_tool");
        }
    }

    @Test
    void thePageHasAStrictContentSecurityPolicyAndIsBehindTheHostAndOriginChecks() throws Exception {
        try (TernProcess tern = TernProcess.http("user-directory", "--status")) {
            URI endpoint = URI.create(tern.url());
            HttpResponse<String> page = CLIENT.send(HttpRequest.newBuilder(endpoint.resolve("/status")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(page.statusCode()).isEqualTo(200);
            assertThat(page.headers().firstValue("content-type").orElse("")).startsWith("text/html");
            String csp = page.headers().firstValue("content-security-policy").orElse("");
            assertThat(csp).contains("default-src 'none'").contains("connect-src 'self'")
                    .contains("frame-ancestors 'none'").containsPattern("script-src 'sha256-[A-Za-z0-9+/=]+'")
                    .doesNotContain("unsafe-inline").doesNotContain("unsafe-eval");
            assertThat(page.headers().firstValue("x-content-type-options")).hasValue("nosniff");
            // Nothing is loaded from elsewhere: no source or link attribute names another URL.
            assertThat(page.body()).doesNotContainPattern("(?i)(src|href)\\s*=").doesNotContain("http://")
                    .doesNotContain("https://");

            for (String path : List.of("/status", "/status.json")) {
                assertThat(rawStatus(endpoint.getPort(), "GET " + path + " HTTP/1.1\r\nHost: evil.example\r\n"))
                        .as(path).isEqualTo(403);
                assertThat(rawStatus(endpoint.getPort(),
                        "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: https://evil.example\r\n"))
                        .as(path).isEqualTo(403);
            }
        }
    }

    @Test
    void withAuthorizationOnThePageAndItsFeedNeedATokenAsMetricsDo() throws Exception {
        MockOAuth2Server authorizationServer = new MockOAuth2Server();
        authorizationServer.start(InetAddress.getLoopbackAddress(), 0);
        try {
            int port;
            try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                port = free.getLocalPort();
            }
            String resource = "http://127.0.0.1:" + port + "/mcp";
            String issuer = authorizationServer.issuerUrl("default").toString();
            try (TernProcess tern = TernProcess.http(port, "user-directory", "--auth-issuer", issuer,
                    "--status", "--metrics")) {
                URI endpoint = URI.create(tern.url());
                String token = "Bearer " + authorizationServer.issueToken("default", "alice", resource,
                        Map.of("scope", "users:read"), 3600).serialize();
                makeCalls(endpoint, token);
                for (String path : List.of("/status", "/status.json", "/metrics")) {
                    HttpResponse<String> without = CLIENT.send(HttpRequest.newBuilder(endpoint.resolve(path)).build(),
                            HttpResponse.BodyHandlers.ofString());
                    assertThat(without.statusCode()).as(path).isEqualTo(401);
                    assertThat(without.headers().firstValue("www-authenticate").orElse("")).as(path)
                            .startsWith("Bearer");
                    HttpResponse<String> with = CLIENT.send(HttpRequest.newBuilder(endpoint.resolve(path))
                            .header("Authorization", token).build(), HttpResponse.BodyHandlers.ofString());
                    assertThat(with.statusCode()).as(path).isEqualTo(200);
                }
                HttpResponse<String> refused = call(endpoint, null, 50, "get_user", "{\"id\":\"1\"}");
                assertThat(refused.statusCode()).isEqualTo(401);
                // The feed is put together at most twice a second: read it until it has the refusal.
                JsonNode status = null;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (System.nanoTime() < deadline) {
                    HttpResponse<String> feed = CLIENT.send(HttpRequest.newBuilder(endpoint.resolve("/status.json"))
                            .header("Authorization", token).build(), HttpResponse.BodyHandlers.ofString());
                    status = Json.mapper().readTree(feed.body());
                    if (status.path("recent_errors").path(0).path("method").stringValue().equals("unknown")) {
                        break;
                    }
                    Thread.sleep(100);
                }
                assertThat(operation(status, "tools/call", "get_user").path("count").asLong()).isEqualTo(CALLS);
                // The refusal came before the body was read: the feed counts it, under no method.
                assertThat(status.path("recent_errors").path(0).path("method").stringValue()).isEqualTo("unknown");
                assertThat(status.path("recent_errors").path(0).path("message").stringValue())
                        .startsWith("Unauthorized");
            }
        } finally {
            authorizationServer.shutdown();
        }
    }

    /** Waits until the feed counts at least {@code calls} calls of {@code get_user}, failing after 30 s. */
    private static void awaitCalls(URI endpoint, long calls, TernProcess bench) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        long seen = 0;
        while (System.nanoTime() < deadline && bench.process().isAlive()) {
            HttpResponse<String> feed = CLIENT.send(HttpRequest.newBuilder(endpoint.resolve("/status.json")).build(),
                    HttpResponse.BodyHandlers.ofString());
            JsonNode status = Json.mapper().readTree(feed.body());
            for (JsonNode op : status.path("operations")) {
                if ("get_user".equals(op.path("target").stringValue())) {
                    seen = op.path("count").asLong();
                }
            }
            if (seen >= calls) {
                return;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("the bench made " + seen + " calls of get_user, not " + calls + "; its stderr:\n"
                + bench.stderr());
    }

    /**
     * Waits until the second in which the calls were made is over: the page's rate, error ratio and chart count whole
     * seconds only, and a quick browser would otherwise load it within that second.
     */
    private static void awaitWholeSecondOfCalls(URI endpoint) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        JsonNode status;
        do {
            Thread.sleep(100);
            HttpResponse<String> feed = CLIENT.send(HttpRequest.newBuilder(endpoint.resolve("/status.json")).build(),
                    HttpResponse.BodyHandlers.ofString());
            status = Json.mapper().readTree(feed.body());
        } while (status.path("error_ratio").isNull() && System.nanoTime() < deadline);
        assertThat(status.path("error_ratio").isNumber()).as(status.toString()).isTrue();
    }

    /** The number in a row's cell of this class. */
    private static double cellValue(String row, String className) {
        Matcher m = Pattern.compile("<td class=\"" + className + "\">([0-9.]+)</td>").matcher(row);
        assertThat(m.find()).as("a number in the %s cell of %s", className, row).isTrue();
        return Double.parseDouble(m.group(1));
    }

    /** The number shown by one of the page's figures. */
    private static double figure(String dom, String id) {
        Matcher m = Pattern.compile("<span class=\"value\" id=\"" + id + "\">([0-9.]+)</span>").matcher(dom);
        assertThat(m.find()).as("a number in figure %s", id).isTrue();
        return Double.parseDouble(m.group(1));
    }

    /** {@link #CALLS} calls of {@code get_user} and one of a tool that does not exist. */
    private static void makeCalls(URI endpoint, String authorization) throws Exception {
        for (int i = 0; i < CALLS; i++) {
            HttpResponse<String> reply = call(endpoint, authorization, i + 1, "get_user", "{\"id\":\"" + (i + 1) + "\"}");
            assertThat(reply.statusCode()).as(reply.body()).isEqualTo(200);
            assertThat(reply.body()).contains("structuredContent");
        }
        HttpResponse<String> unknown = call(endpoint, authorization, 99, "no_such_tool", "{}");
        assertThat(unknown.body()).as(unknown.body()).contains("-32602");
    }

    private static HttpResponse<String> call(URI endpoint, String authorization, int id, String tool, String arguments)
            throws IOException, InterruptedException {
        String body = """
                {"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"%s","arguments":%s,
                 "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",
                 "io.modelcontextprotocol/clientCapabilities":{}}}}""".formatted(id, tool, arguments);
        HttpRequest.Builder b = HttpRequest.newBuilder(endpoint)
                .header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream")
                .header("MCP-Protocol-Version", "2026-07-28")
                .header("Mcp-Method", "tools/call")
                .header("Mcp-Name", tool)
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode operation(JsonNode status, String method, String target) {
        for (JsonNode op : status.path("operations")) {
            if (op.path("method").stringValue().equals(method) && target.equals(op.path("target").stringValue())) {
                return op;
            }
        }
        throw new AssertionError("no " + method + " " + target + " in " + status);
    }

    /** The status code of one raw HTTP/1.1 request, for headers the JDK's client will not send (Host). */
    private static int rawStatus(int port, String head) throws IOException {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write((head + "Connection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            String status = new String(in.readNBytes(12), StandardCharsets.US_ASCII);
            return Integer.parseInt(status.substring(9, 12));
        }
    }

    /**
     * Runs headless Chromium on the page with a profile of its own, long enough in virtual time for the page to fetch
     * its feed and render it, and returns what it printed on stdout.
     */
    private String chromium(String binary, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(binary, "--headless", "--no-sandbox", "--disable-gpu",
                "--no-first-run", "--disable-extensions", "--disable-dev-shm-usage", "--user-data-dir=" + dir.resolve("profile"),
                "--virtual-time-budget=5000"));
        command.addAll(List.of(args));
        Path out = dir.resolve("chromium.out");
        Path err = dir.resolve("chromium.err");
        Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        try {
            if (!p.waitFor(90, TimeUnit.SECONDS)) {
                throw new AssertionError("chromium did not finish in 90 s; stderr:\n" + Files.readString(err));
            }
            assertThat(p.exitValue()).as(Files.readString(err)).isZero();
            return Files.readString(out);
        } finally {
            if (p.isAlive()) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    /** Chromium: TERN_CHROMIUM, or chromium on the PATH; fails naming the script that installs it. */
    static String chromiumBinary() {
        String configured = System.getenv("TERN_CHROMIUM");
        if (configured != null && Files.isExecutable(Path.of(configured))) {
            return configured;
        }
        for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            for (String name : List.of("chromium", "chromium-browser")) {
                Path candidate = Path.of(dir, name);
                if (Files.isExecutable(candidate)) {
                    return candidate.toString();
                }
            }
        }
        throw new AssertionError("No Chromium found: run bin/install-chromium.sh (or set TERN_CHROMIUM)");
    }
}
