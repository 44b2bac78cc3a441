package dev.tern.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import dev.tern.bench.BenchResult;
import dev.tern.bench.Reports;
import dev.tern.bench.RunResult;
import dev.tern.examples.Examples;
import dev.tern.server.McpServer;
import dev.tern.transport.http.HttpServerTransport;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

import picocli.CommandLine;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code tern bench} end to end, against the user directory served in this process. */
class BenchCommandTest {
    private static McpServer server;
    private static HttpServerTransport transport;

    @BeforeAll
    static void start() throws Exception {
        server = Examples.create("user-directory");
        transport = HttpServerTransport.builder(server).port(0).build().start();
    }

    @AfterAll
    static void stop() {
        transport.close();
        server.close();
    }

    private static int bench(String... args) {
        String[] all = new String[args.length + 1];
        all[0] = "bench";
        System.arraycopy(args, 0, all, 1, args.length);
        return Main.run(Map.of(), all);
    }

    @Test
    void anOpenLoopRunWritesJsonMarkdownAndHtml(@TempDir Path dir) throws Exception {
        int code = bench("--url", transport.url(), "--rate", "100", "--duration", "1s", "--warmup", "500ms", "-q",
                "--era", "modern", "--http", "h2c", "--pid", Long.toString(ProcessHandle.current().pid()), "--label", "tern",
                "--json", dir.resolve("r.json").toString(), "--md", dir.resolve("r.md").toString(),
                "--html", dir.resolve("r.html").toString());

        assertThat(code).isZero();
        BenchResult result = Reports.readJson(dir.resolve("r.json"));
        assertThat(result.label()).isEqualTo("tern");
        RunResult run = result.runs().get(0);
        assertThat(run.errors()).as("%s", run.errorSamples()).isEmpty();
        assertThat(run.ok()).isEqualTo(100);
        assertThat(run.warmupSeconds()).isEqualTo(0.5);
        assertThat(run.process()).isNotNull();
        assertThat(run.target()).endsWith("(h2c)");
        assertThat(run.connect().count()).isEqualTo(1);
        assertThat(Files.readString(dir.resolve("r.md"))).contains("| rate=100 | open 100/s |");
        assertThat(Files.readString(dir.resolve("r.html"))).contains("echarts.init(", "Latency by percentile");
    }

    @ParameterizedTest
    @ValueSource(strings = {"modern", "legacy"})
    void aClosedLoopRunOverWebSocket(String era, @TempDir Path dir) throws Exception {
        int code = bench("--url", transport.webSocketUrl(), "--connections", "3", "--duration", "1s", "--warmup",
                "200ms", "-q", "--era", era, "--json", dir.resolve("r.json").toString());

        assertThat(code).isZero();
        RunResult run = Reports.readJson(dir.resolve("r.json")).runs().get(0);
        assertThat(run.errors()).as("%s", run.errorSamples()).isEmpty();
        assertThat(run.ok()).isPositive();
        assertThat(run.target()).contains(transport.webSocketUrl()).endsWith("(WebSocket, 3 connections)");
        assertThat(bench("--url", transport.webSocketUrl(), "--http", "h2", "--rate", "10")).isEqualTo(2);

        int onHttp2 = bench("--url", transport.webSocketUrl(), "--http", "h2c", "--connections", "3", "--duration",
                "1s", "--warmup", "200ms", "-q", "--era", era, "--json", dir.resolve("h2.json").toString());
        assertThat(onHttp2).isZero();
        RunResult streams = Reports.readJson(dir.resolve("h2.json")).runs().get(0);
        assertThat(streams.errors()).as("%s", streams.errorSamples()).isEmpty();
        assertThat(streams.ok()).isPositive();
        assertThat(streams.target()).endsWith("(WebSocket on HTTP/2, 3 connections)");
    }

    @ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({"http, cbor, modern, CBOR", "http, msgpack, legacy, MessagePack",
        "ws, cbor, legacy, CBOR", "ws, msgpack, modern, MessagePack"})
    void aRunInABinaryEncodingOverHttpOrWebSocket(String transportKind, String encoding, String era, String name,
            @TempDir Path dir) throws Exception {
        String url = transportKind.equals("ws") ? transport.webSocketUrl() : transport.url();
        int code = bench("--url", url, "--encoding", encoding, "--connections", "2", "--duration", "30s", "--warmup",
                "0s", "--max-requests", "100", "-q", "--era", era, "--json", dir.resolve("r.json").toString());

        assertThat(code).isZero();
        RunResult run = Reports.readJson(dir.resolve("r.json")).runs().get(0);
        assertThat(run.errors()).as("%s", run.errorSamples()).isEmpty();
        assertThat(run.ok()).isEqualTo(100);
        assertThat(run.target()).contains(name);
    }

    @Test
    void refusesAnUnknownEncodingAndABinaryOneWithoutAnMcpUrl() {
        assertThat(bench("--url", transport.url(), "--encoding", "xml", "--rate", "10")).isEqualTo(2);
        assertThat(bench("--rest", transport.url(), "--encoding", "cbor", "--rate", "10")).isEqualTo(2);
    }

    @Test
    void aSweepOfConnectionsAndAMergedReport(@TempDir Path dir) throws Exception {
        Path sweep = dir.resolve("sweep.json");
        Path mix = dir.resolve("mix.json");
        assertThat(bench("--url", transport.url(), "--sweep", "--connections", "1,4", "--duration", "30s",
                "--warmup", "0s", "--max-requests", "100", "-q", "--label", "sweep", "--json", sweep.toString()))
                .isZero();
        assertThat(bench("--url", transport.url(), "--workload", "mix", "--mix", "call:2,list:1,read:1",
                "--era", "legacy", "--connections", "2", "--duration", "30s", "--warmup", "0s", "--max-requests",
                "100", "-q", "--label", "mix", "--json", mix.toString())).isZero();

        BenchResult s = Reports.readJson(sweep);
        assertThat(s.runs()).extracting(RunResult::name).containsExactly("c=1", "c=4");
        assertThat(s.runs()).extracting(RunResult::requests).containsExactly(100L, 100L);
        BenchResult m = Reports.readJson(mix);
        assertThat(m.runs().get(0).errors()).as("%s", m.runs().get(0).errorSamples()).isEmpty();
        assertThat(m.runs().get(0).workload()).contains("tools/list:1", "resources/read user://42:1");
        assertThat(m.runs().get(0).target()).contains("2025-11-25");

        Path md = dir.resolve("report.md");
        Path html = dir.resolve("report.html");
        assertThat(Main.run(Map.of(), "bench", "report", "--baseline", "mix", sweep.toString(), mix.toString(),
                "--md", md.toString(), "--html", html.toString())).isZero();
        assertThat(Files.readString(md)).contains("| sweep c=1 |", "| sweep c=4 |", "| mix |", "1.00×");
        assertThat(Files.readString(html)).contains("Throughput vs p99 latency");
    }

    @Test
    void aSweepOverRatesAndConnectionsIsASurface(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("surface.json");
        assertThat(bench("--url", transport.url(), "--sweep", "--connections", "1,4", "--rates", "50,100",
                "--duration", "500ms", "--warmup", "0s", "-q", "--json", out.toString())).isZero();

        BenchResult result = Reports.readJson(out);
        assertThat(result.runs()).extracting(RunResult::name)
                .containsExactly("c=1 rate=50", "c=1 rate=100", "c=4 rate=50", "c=4 rate=100");
        assertThat(result.runs()).extracting(RunResult::connections).containsExactly(1, 1, 4, 4);
        assertThat(result.runs()).extracting(RunResult::requests).containsExactly(25L, 50L, 25L, 50L);
        assertThat(result.runs()).allSatisfy(r -> assertThat(r.errors()).isEmpty());
        // A client per connection limit: one connection for the first two points, at most four for the others.
        assertThat(result.runs().get(0).connect().count()).isEqualTo(1);
        assertThat(result.runs().get(1).connect()).isNull();
        assertThat(result.runs().get(2).connect().count()).isBetween(1L, 4L);
    }

    @Test
    void aRestEndpointAndABurst(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("burst.json");
        String health = transport.url().replace("/mcp", "/health");
        assertThat(bench("--rest", health, "--burst", "10:50:1s", "--warmup", "0s", "-q", "--json", out.toString()))
                .isZero();

        RunResult r = Reports.readJson(out).runs().get(0);
        assertThat(r.target()).startsWith("REST ");
        assertThat(r.phases()).hasSize(3);
        assertThat(r.requests()).isEqualTo(70);
        assertThat(r.errors()).isEmpty();
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    @Test
    void coldStartOfAnHttpServerThenWarm(@TempDir Path dir) throws Exception {
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        String serve = java() + " -cp " + System.getProperty("java.class.path") + " " + Main.class.getName()
                + " serve --port " + port;
        Path out = dir.resolve("cold.json");
        assertThat(bench("--url", "http://127.0.0.1:" + port + "/mcp", "--cold", serve, "--connections", "2",
                "--duration", "30s", "--warmup", "0s", "--max-requests", "100", "-q", "--json", out.toString()))
                .isZero();

        BenchResult result = Reports.readJson(out);
        assertThat(result.coldStart()).isNotNull();
        assertThat(result.coldStart().startToFirstCallMs()).isPositive();
        assertThat(result.coldStart().attempts()).isGreaterThan(1); // the first tries come before the port is open
        RunResult warm = result.runs().get(0);
        assertThat(warm.ok()).isEqualTo(100);
        assertThat(warm.process()).as("the spawned server is sampled").isNotNull();
    }

    @Test
    void coldStartOverStdio(@TempDir Path dir) throws Exception {
        String serve = java() + " -cp " + System.getProperty("java.class.path") + " " + Main.class.getName()
                + " serve --stdio";
        Path out = dir.resolve("stdio.json");
        assertThat(bench("--stdio", serve, "--cold", "--workload", "list", "--connections", "4", "--duration", "30s",
                "--warmup", "0s", "--max-requests", "200", "-q", "--json", out.toString())).isZero();

        BenchResult result = Reports.readJson(out);
        assertThat(result.coldStart().command()).isEqualTo(serve);
        assertThat(result.coldStart().attempts()).isEqualTo(1);
        RunResult warm = result.runs().get(0);
        assertThat(warm.target()).startsWith("MCP 2026-07-28 stdio: ");
        assertThat(warm.errors()).as("%s", warm.errorSamples()).isEmpty();
        assertThat(warm.ok()).isEqualTo(200);
        assertThat(warm.process()).isNotNull();
    }

    @Test
    void everyRequestCarriesTheHeadersGivenSoAServerThatNeedsATokenIsMeasured(@TempDir Path dir) throws Exception {
        try (var auth = dev.tern.auth.ResourceServer.builder("http://127.0.0.1/mcp")
                .authorizationServer("http://127.0.0.1/issuer")
                .verifier("Bearer", (token, certificate) -> {
                    if (!token.equals("bench-token")) {
                        throw new dev.tern.auth.InvalidTokenException("not the bench token");
                    }
                    return dev.tern.auth.AccessPrincipal.of("http://127.0.0.1/issuer", "bench", null,
                            java.util.Set.of("users:read"), Map.of(), null);
                }).build();
                McpServer guarded = Examples.create("user-directory");
                HttpServerTransport protectedTransport = HttpServerTransport.builder(guarded).port(0)
                        .restFacade(true).auth(auth).build().start()) {
            String mcp = protectedTransport.url();
            String rest = mcp.replace("/mcp", "/rest/tools/get_user");
            for (String[] target : new String[][] {{"--url", mcp, "--era", "modern"}, {"--url", mcp, "--era", "legacy"},
                    {"--rest", rest, "--body", "{\"id\":\"42\"}"}}) {
                Path with = dir.resolve("with.json");
                Path without = dir.resolve("without.json");
                List<String> common = List.of("--max-requests", "20", "--rate", "200", "--duration", "2s",
                        "--warmup", "0s", "-q");
                List<String> args = new java.util.ArrayList<>(List.of(target));
                args.addAll(common);
                args.addAll(List.of("--header", "Authorization: Bearer bench-token", "--header", "X-Bench: 1",
                        "--json", with.toString()));
                assertThat(bench(args.toArray(String[]::new))).as(String.join(" ", target)).isZero();
                RunResult served = Reports.readJson(with).runs().get(0);
                assertThat(served.errors()).as("%s: %s", target[1], served.errorSamples()).isEmpty();
                assertThat(served.ok()).isEqualTo(20);

                if (target[0].equals("--rest")) {
                    List<String> bare = new java.util.ArrayList<>(List.of(target));
                    bare.addAll(common);
                    bare.addAll(List.of("--json", without.toString()));
                    bench(bare.toArray(String[]::new));
                    assertThat(Reports.readJson(without).runs().get(0).ok()).as("without the token").isZero();
                }
            }
        }
        assertThat(bench("--url", transport.url(), "--header", "no colon")).isEqualTo(2);
        assertThat(bench("--url", transport.url(), "--header", "bad name: x")).isEqualTo(2);
        assertThat(BenchCommand.parseHeaders(List.of("Authorization:  Bearer a.b.c "))).containsExactly(
                Map.entry("Authorization", "Bearer a.b.c"));
    }

    @Test
    void requestsPerConnectionMakesNewConnectionsThroughTheRunAndNeedsHttp11(@TempDir Path dir) throws Exception {
        int code = bench("--url", transport.url(), "--rate", "100", "--duration", "1s", "--warmup", "0s", "-q",
                "--era", "modern", "--requests-per-connection", "4", "--json", dir.resolve("r.json").toString());

        assertThat(code).isZero();
        RunResult run = Reports.readJson(dir.resolve("r.json")).runs().get(0);
        assertThat(run.errors()).as("%s", run.errorSamples()).isEmpty();
        assertThat(run.ok()).isEqualTo(100);
        assertThat(run.connect().count()).as("connections for 100 calls, 4 on each").isGreaterThanOrEqualTo(25);
        assertThat(bench("--url", transport.url(), "--http", "h2c", "--requests-per-connection", "4")).isEqualTo(2);
        assertThat(bench("--rest", transport.url(), "--requests-per-connection", "4")).isEqualTo(2);
        assertThat(bench("--url", transport.url(), "--requests-per-connection", "-1")).isEqualTo(2);
    }

    @Test
    void mistakesAreUsageErrors() {
        assertThat(bench("--rate", "10")).isEqualTo(2);
        assertThat(bench("--url", transport.url(), "--rest", transport.url())).isEqualTo(2);
        assertThat(bench("--url", transport.url(), "--rate", "10", "--connections", "2")).isEqualTo(2);
        assertThat(bench("--url", transport.url(), "--connections", "1,2")).isEqualTo(2);
        assertThat(bench("--url", transport.url(), "--duration", "soon")).isEqualTo(2);
        assertThat(bench("--url", transport.url(), "--workload", "mix", "--mix", "call:1,write:1")).isEqualTo(2);
        assertThat(bench("--url", transport.url(), "--era", "2030")).isEqualTo(2);
        assertThat(bench("--url", transport.url(), "--cold")).isEqualTo(2);
        assertThat(bench("--url", "http://127.0.0.1:1/mcp", "--rate", "10", "--duration", "1s")).isEqualTo(1);
        assertThat(bench("compare", "--server-cpus", "first")).isEqualTo(2);
        assertThat(bench("compare", "--server-cpus", "0,")).isEqualTo(2);
        assertThat(bench("compare", "--server-jfr", "a,b.jfr")).isEqualTo(2);
    }

    @Test
    void compareServesTheUserDirectoryInAChildAndComparesAtOneRate(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("compare.json");
        Path md = dir.resolve("compare.md");
        Path jfr = dir.resolve("server.jfr");
        assertThat(Main.run(Map.of(), "bench", "compare", "--rate", "100", "--duration", "1s", "--warmup", "500ms",
                "--server-cpus", "0", "--server-jfr", jfr.toString(), "-q", "--json", out.toString(), "--md",
                md.toString())).isZero();

        try (var recording = new jdk.jfr.consumer.RecordingFile(jfr)) {
            boolean cpuSampled = false;
            while (recording.hasMoreEvents() && !cpuSampled) {
                cpuSampled = recording.readEvent().getEventType().getName().equals("jdk.ExecutionSample");
            }
            assertThat(cpuSampled).as("the server's recording has CPU samples (settings=profile)").isTrue();
        }

        BenchResult result = Reports.readJson(out);
        assertThat(result.runs()).extracting(RunResult::name).startsWith("MCP modern", "MCP legacy");
        for (RunResult r : result.runs()) {
            assertThat(r.errors()).as("%s: %s", r.name(), r.errorSamples()).isEmpty();
            assertThat(r.ok()).isEqualTo(100);
            assertThat(r.process()).as("the child server is sampled").isNotNull();
        }
        String table = Files.readString(md);
        assertThat(table).contains("| MCP modern | open 100/s |", "| MCP legacy | open 100/s |", "CPU/call ×");
        if (result.runs().size() == 3) {
            assertThat(table).contains("Ratios against REST");
        } else {
            assertThat(table).contains("Ratios against MCP modern");
        }
    }

    @Test
    void compareServesTheUserDirectoryOnAnEphemeralPortWithServerTimingOnlyWhenAsked() {
        assertThat(BenchCommand.Compare.serverArgs(false)).containsExactly("serve", "--example", "user-directory",
                "--host", "127.0.0.1", "--port", "0");
        assertThat(BenchCommand.Compare.serverArgs(true)).endsWith("--port", "0", "--server-timing");
    }

    @Test
    void compareHandsTheServerAnArgumentNamedLikeOneOfItsOwnOptions() {
        CommandLine.ParseResult parsed = Main.commandLine(List.of("bench"))
                .parseArgs("bench", "compare", "--server-arg=--traces", "--server-arg", "--metrics");
        CommandLine.ParseResult compare = parsed.subcommand().subcommand();

        assertThat(compare.matchedOptionValue("--server-arg", List.<String>of())).containsExactly("--traces",
                "--metrics");
        assertThat(compare.hasMatchedOption("--traces")).isFalse();
    }
}
