package dev.tern.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import dev.tern.bench.targets.Era;
import dev.tern.bench.targets.HttpMcpTarget;
import dev.tern.examples.Examples;
import dev.tern.server.McpServer;
import dev.tern.transport.http.HttpServerTransport;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/** A short real run against Tern's user directory, in both eras, and the reports made from it. */
class ReportsFromARealRunTest {
    private static McpServer server;
    private static HttpServerTransport transport;
    private static BenchResult modern;
    private static BenchResult legacy;

    @BeforeAll
    static void run() throws Exception {
        server = Examples.create("user-directory");
        transport = HttpServerTransport.builder(server).port(0).build().start();
        modern = runOnce("tern-modern", Era.MODERN);
        legacy = runOnce("tern-legacy", Era.LEGACY);
    }

    private static BenchResult runOnce(String label, Era era) throws Exception {
        HttpMcpTarget target = HttpMcpTarget.builder(java.net.URI.create(transport.url())).era(era).build();
        try (LoadRunner runner = LoadRunner.of(target, Workload.of(Operation.callTool("get_user", "{\"id\":\"42\"}")))
                .sampling(ProcessHandle.current().pid())) {
            RunResult r = runner.run("get_user", LoadSpec.openLoop(200, Duration.ofSeconds(2))
                    .withWarmup(Duration.ofMillis(500)));
            return BenchResult.of(label, null, List.of(r));
        }
    }

    @AfterAll
    static void stop() {
        if (transport != null) {
            transport.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void theRunsMeasuredRealCalls() {
        for (BenchResult result : List.of(modern, legacy)) {
            RunResult r = result.runs().get(0);
            assertThat(r.errors()).as("%s: %s", result.label(), r.errorSamples()).isEmpty();
            assertThat(r.ok()).isEqualTo(400);
            assertThat(r.latency().p50Ms()).isPositive();
            assertThat(r.process()).isNotNull();
            assertThat(r.series()).isNotEmpty();
            assertThat(r.series().get(0).warmup()).isFalse(); // the first tick is at 1 s, past the 0.5 s warm-up
        }
        assertThat(modern.runs().get(0).target()).contains("MCP 2026-07-28").contains("HTTP/1.1");
        assertThat(legacy.runs().get(0).target()).contains("MCP 2025-11-25 (session)");
    }

    @Test
    void overTlsTheHandshakesAndConnectionsAreReported() throws Exception {
        HttpServerTransport tls = HttpServerTransport.builder(server).port(0).tls(t -> t.selfSigned()).build().start();
        try {
            for (dev.tern.bench.targets.HttpVersion version : List.of(dev.tern.bench.targets.HttpVersion.H2,
                    dev.tern.bench.targets.HttpVersion.HTTP_1_1)) {
                HttpMcpTarget target = HttpMcpTarget.builder(java.net.URI.create(tls.url())).era(Era.MODERN)
                        .http(version).insecure(true).connections(4).build();
                try (LoadRunner runner = LoadRunner.of(target,
                        Workload.of(Operation.callTool("get_user", "{\"id\":\"7\"}")))) {
                    RunResult r = runner.run("tls", LoadSpec.closedLoop(4, Duration.ofSeconds(30)).withMaxRequests(60));

                    assertThat(r.errors()).as("%s", r.errorSamples()).isEmpty();
                    assertThat(r.connect()).isNotNull();
                    assertThat(r.tls()).isNotNull();
                    assertThat(r.tls().full() + r.tls().resumed()).isEqualTo(r.connect().count());
                    assertThat(r.tls().full()).isPositive();
                    assertThat(r.ttfb()).isNotNull();
                    assertThat(Reports.markdown(BenchResult.of("tls", null, List.of(r))))
                            .contains("| tls | ").contains(" %");
                }
            }
            // Connections opened after the first handshake resume its session.
            HttpMcpTarget target = HttpMcpTarget.builder(java.net.URI.create(tls.url())).era(Era.MODERN)
                    .http(dev.tern.bench.targets.HttpVersion.HTTP_1_1).insecure(true).connections(4).build();
            try (LoadRunner runner = LoadRunner.of(target,
                    Workload.of(Operation.callTool("get_user", "{\"id\":\"7\"}")))) {
                RunResult one = runner.run("one", LoadSpec.closedLoop(1, Duration.ofSeconds(30)).withMaxRequests(10));
                RunResult four = runner.run("four", LoadSpec.closedLoop(4, Duration.ofSeconds(30))
                        .withMaxRequests(60));

                // (even the first may resume: the development trust settings share one session cache)
                assertThat(one.tls().full() + one.tls().resumed()).isEqualTo(one.connect().count());
                assertThat(four.tls().resumed()).isPositive();
                assertThat(four.tls().resumptionRate()).isPositive();
                assertThat(four.tls().resumedHandshake()).isNotNull();
            }
        } finally {
            tls.close();
        }
    }

    @Test
    void connectionsClosedAfterSomeRequestsAreMadeAnewEachWithItsHandshake() throws Exception {
        HttpServerTransport tls = HttpServerTransport.builder(server).port(0).tls(t -> t.selfSigned()).build().start();
        try {
            HttpMcpTarget target = HttpMcpTarget.builder(java.net.URI.create(tls.url())).era(Era.MODERN)
                    .http(dev.tern.bench.targets.HttpVersion.HTTP_1_1).insecure(true).connections(2)
                    .requestsPerConnection(3).build();
            try (LoadRunner runner = LoadRunner.of(target,
                    Workload.of(Operation.callTool("get_user", "{\"id\":\"7\"}")))) {
                RunResult r = runner.run("short", LoadSpec.closedLoop(2, Duration.ofSeconds(30)).withMaxRequests(60));

                assertThat(r.errors()).as("%s", r.errorSamples()).isEmpty();
                assertThat(r.ok()).isEqualTo(60);
                assertThat(r.connect().count()).as("connections for 60 calls, 3 on each").isGreaterThanOrEqualTo(20);
                assertThat(r.tls().full() + r.tls().resumed()).isEqualTo(r.connect().count());
                assertThat(r.tls().failed()).isZero();
                assertThat(r.tls().failureSample()).isNull();
            }
        } finally {
            tls.close();
        }
        assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> HttpMcpTarget.builder(
                java.net.URI.create("https://127.0.0.1:1/mcp")).http(dev.tern.bench.targets.HttpVersion.H2)
                .requestsPerConnection(3).build())).as("HTTP/2 has no Connection: close")
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aHandshakeThatFailsIsCountedAsFailed() throws Exception {
        // TLS against the plaintext port: every handshake fails
        java.net.URI plain = java.net.URI.create(transport.url().replaceFirst("^http:", "https:"));
        HttpMcpTarget target = HttpMcpTarget.builder(plain).era(Era.MODERN)
                .http(dev.tern.bench.targets.HttpVersion.HTTP_1_1).insecure(true).connections(1).build();
        try (LoadRunner runner = LoadRunner.of(target,
                Workload.of(Operation.callTool("get_user", "{\"id\":\"7\"}")))) {
            RunResult r = runner.run("refused", LoadSpec.closedLoop(1, Duration.ofSeconds(30)).withMaxRequests(3));

            assertThat(r.ok()).isZero();
            assertThat(r.tls()).isNotNull();
            assertThat(r.tls().full() + r.tls().resumed()).isZero();
            assertThat(r.tls().failed()).isEqualTo(3);
            assertThat(r.tls().failureSample()).isNotBlank();
            assertThat(Reports.markdown(BenchResult.of("refused", null, List.of(r)))).contains("TLS failed");
        }
    }

    @Test
    void jsonKeepsEveryFigure(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("modern.json");
        Reports.write(file, Reports.json(modern));
        BenchResult back = Reports.readJson(file);

        assertThat(back).isEqualTo(modern);
        String json = Files.readString(file);
        assertThat(json).contains("\"label\" : \"tern-modern\"", "\"p99Ms\"", "\"percentiles\"", "\"series\"",
                "\"cpuPerCallMicros\"");
        assertThat(json).doesNotContain("null");
    }

    @Test
    void markdownIsATable() {
        String md = Reports.markdown(modern);

        assertThat(md).startsWith("## tern-modern: MCP 2026-07-28");
        assertThat(md).contains("| run | load | req/s | p50 ms | p90 ms | p99 ms | p99.9 ms | max ms | ok | errors "
                + "| CPU/call µs | RSS |");
        assertThat(md).contains("| get_user | open 200/s |");
        assertThat(md).contains("Connections and first byte");
        assertThat(md).contains("coordinated omission");
    }

    @Test
    void htmlIsSelfContainedWithCharts(@TempDir Path dir) throws Exception {
        String html = Reports.html(modern);
        Reports.write(dir.resolve("report.html"), html);

        assertThat(html).startsWith("<!DOCTYPE html>");
        // The charting library is inlined with its licence header, and nothing is loaded from elsewhere.
        assertThat(html).contains("Licensed to the Apache Software Foundation (ASF)");
        assertThat(html).contains("echarts.init(");
        assertThat(html).contains("Latency by percentile", "Per second: ", "Server CPU time per call");
        assertThat(html).doesNotContain("<script src", "<link ", "@import");
        assertThat(html).contains("<script type=\"application/json\" id=\"bench-data\">{");
        assertThat(html.length()).isGreaterThan(600_000);
    }

    @Test
    void comparisonGivesRatiosAgainstTheBaseline() {
        Comparison c = Reports.compare(List.of(modern, legacy), "tern-modern");
        String md = c.markdown();

        assertThat(c.rows()).extracting(Comparison.Row::label).containsExactly("tern-modern", "tern-legacy");
        assertThat(md).contains("| target | load | req/s | p50 ms | p99 ms | max ms | errors | CPU/call µs | RSS "
                + "| req/s × | p50 × | p99 × | CPU/call × |");
        assertThat(md).contains("| tern-modern | open 200/s |");
        assertThat(md.lines().filter(l -> l.startsWith("| tern-modern")).findFirst().orElseThrow())
                .endsWith("| 1.00× | 1.00× | 1.00× | 1.00× |");
        assertThat(md).contains("Ratios against tern-modern");

        String html = c.html();
        assertThat(html).contains("Throughput vs p99 latency", "Latency per run", "tern-legacy");
    }

    @Test
    void anUnknownBaselineIsRefusedWithTheChoices() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Reports.compare(List.of(modern), "nope"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tern-modern");
    }
}
