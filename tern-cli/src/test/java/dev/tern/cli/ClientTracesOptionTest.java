package dev.tern.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.tern.examples.Examples;
import dev.tern.observability.Observability;
import dev.tern.server.McpServer;
import dev.tern.transport.http.HttpServerTransport;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.sun.net.httpserver.HttpServer;

import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.data.SpanData;

/**
 * {@code tern call --traces} and {@code tern bench --traces} against a traced server in this process, exporting their
 * spans over OTLP to an endpoint of the test's that keeps what it is sent: the server's spans are children of the
 * client spans the command exported, whose context it put in each request's {@code _meta}; without the option no
 * context goes.
 */
class ClientTracesOptionTest {
    /** The system property that points the commands' OTLP span export at the test's endpoint. */
    private static final String TRACES_ENDPOINT = "otel.exporter.otlp.traces.endpoint";
    private static final List<SpanData> SERVER_SPANS = new CopyOnWriteArrayList<>();
    private static final ByteArrayOutputStream EXPORTED = new ByteArrayOutputStream();
    private static HttpServer otlp;
    private static Observability observability;
    private static McpServer server;
    private static HttpServerTransport transport;

    @BeforeAll
    static void start() throws Exception {
        otlp = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        otlp.createContext("/v1/traces", exchange -> {
            byte[] body = exchange.getRequestBody().readAllBytes();
            synchronized (EXPORTED) {
                EXPORTED.writeBytes(body);
            }
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        otlp.start();
        observability = Observability.builder().tracing(true).spanProcessor(new SpanProcessor() {
            @Override
            public void onStart(Context parentContext, ReadWriteSpan span) {
            }

            @Override
            public boolean isStartRequired() {
                return false;
            }

            @Override
            public void onEnd(ReadableSpan span) {
                SERVER_SPANS.add(span.toSpanData());
            }

            @Override
            public boolean isEndRequired() {
                return true;
            }
        }).build();
        server = Examples.create("user-directory", (path, description, handler) -> {
        }, b -> b.observer(observability.observer()));
        transport = HttpServerTransport.builder(server).host("127.0.0.1").port(0).build().start();
        // Set after the server's observability is built, so that only the commands export there.
        System.setProperty(TRACES_ENDPOINT, "http://127.0.0.1:" + otlp.getAddress().getPort() + "/v1/traces");
    }

    @AfterAll
    static void stop() {
        System.clearProperty(TRACES_ENDPOINT);
        transport.close();
        server.close();
        observability.close();
        otlp.stop(0);
    }

    @BeforeEach
    void forgetEarlierSpans() {
        SERVER_SPANS.clear();
        synchronized (EXPORTED) {
            EXPORTED.reset();
        }
    }

    /** What the commands exported, as ISO-8859-1 text so that binary span ids can be searched for. */
    private static String exported() {
        synchronized (EXPORTED) {
            return EXPORTED.toString(StandardCharsets.ISO_8859_1);
        }
    }

    /** A span id as the bytes OTLP's protobuf carries, in the same text form as {@link #exported()}. */
    private static String idBytes(String hexSpanId) {
        return new String(java.util.HexFormat.of().parseHex(hexSpanId), StandardCharsets.ISO_8859_1);
    }

    @Test
    void aCallWithTracesIsTheParentOfTheServersSpanThroughItsMeta() throws Exception {
        Run run = tern("call", "--traces", "--era", "modern", "--url", transport.url(), "tool", "get_user",
                "{\"id\":\"7\"}");

        assertThat(run.exit()).as(run.err()).isZero();
        SpanContext parent = onlyToolCall().getParentSpanContext();
        assertThat(parent.isValid()).isTrue();
        assertThat(parent.isRemote()).isTrue();
        assertThat(exported()).contains(CallCommand.SERVICE_NAME, "tools/call get_user", idBytes(parent.getSpanId()));
    }

    @Test
    void theVariableThatTurnsOnTheServersTracesTurnsOnTheCallsToo() throws Exception {
        Run run = tern(Map.of("TERN_TRACES", "true"), "call", "--era", "modern", "--url", transport.url(), "tool",
                "get_user", "{\"id\":\"7\"}");

        assertThat(run.exit()).as(run.err()).isZero();
        SpanContext parent = onlyToolCall().getParentSpanContext();
        assertThat(parent.isRemote()).isTrue();
        assertThat(exported()).contains(idBytes(parent.getSpanId()));
    }

    @Test
    void aCallWithoutTracesSendsNoTraceContext() throws Exception {
        Run run = tern("call", "--era", "modern", "--url", transport.url(), "tool", "get_user", "{\"id\":\"7\"}");

        assertThat(run.exit()).as(run.err()).isZero();
        assertThat(onlyToolCall().getParentSpanContext().isValid()).isFalse();
        assertThat(exported()).isEmpty();
    }

    @Test
    void everyRequestOfABenchWithTracesCarriesAContextOfItsOwnInEitherEra() throws Exception {
        for (String era : List.of("modern", "legacy")) {
            SERVER_SPANS.clear();
            Run run = tern("bench", "--traces", "--era", era, "--url", transport.url(), "--rate", "50", "--duration",
                    "1s", "--warmup", "0s", "--max-requests", "20", "-q");

            assertThat(run.exit()).as(run.err()).isZero();
            List<SpanContext> parents = toolCalls(20).stream().map(SpanData::getParentSpanContext).toList();
            assertThat(parents).as(era).hasSize(20).allSatisfy(p -> assertThat(p.isRemote()).isTrue());
            assertThat(parents.stream().map(SpanContext::getSpanId).distinct()).as(era).hasSize(20);
            String exported = exported();
            assertThat(exported).as(era).contains(BenchCommand.TRACES_SERVICE_NAME);
            assertThat(parents).as(era).allSatisfy(p -> assertThat(exported).contains(idBytes(p.getSpanId())));
        }
    }

    @Test
    void aBenchWithoutTracesSendsNoTraceContext() throws Exception {
        Run run = tern("bench", "--era", "modern", "--url", transport.url(), "--rate", "50", "--duration", "1s",
                "--warmup", "0s", "--max-requests", "10", "-q");

        assertThat(run.exit()).as(run.err()).isZero();
        assertThat(toolCalls(10)).hasSize(10)
                .allSatisfy(s -> assertThat(s.getParentSpanContext().isValid()).isFalse());
        assertThat(exported()).isEmpty();
    }

    /**
     * Over WebSocket the bench exports a client span of every request; that each request carries its span's context
     * in {@code _meta} is checked against a real server in tern-bench's {@code TracedTargetsTest}, as Tern's WebSocket
     * transport makes no server spans.
     */
    @Test
    void aBenchWithTracesOverWebSocketExportsAClientSpanOfEveryRequestInEitherEra() throws Exception {
        for (String era : List.of("modern", "legacy")) {
            forgetEarlierSpans();
            Run run = tern("bench", "--traces", "--era", era, "--url", transport.webSocketUrl(), "--connections", "2",
                    "--duration", "10s", "--warmup", "0s", "--max-requests", "20", "-q");

            assertThat(run.exit()).as(run.err()).isZero();
            String exported = exported();
            assertThat(exported).as(era).contains(BenchCommand.TRACES_SERVICE_NAME);
            int spans = (exported.length() - exported.replace("tools/call get_user", "").length())
                    / "tools/call get_user".length();
            assertThat(spans).as(era).isEqualTo(20);
        }
    }

    /**
     * Over stdio the server is a child process: it traces too, and its access log names each request's trace, which
     * is one the bench exported a client span of, since the context went in the request's {@code _meta}. The child
     * exports its own spans elsewhere, so that the test's endpoint holds the bench's alone.
     */
    @Test
    void everyRequestOfABenchWithTracesOverStdioJoinsTheTraceOfItsClientSpan(@TempDir Path dir) throws Exception {
        HttpServer childOtlp = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        childOtlp.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        childOtlp.start();
        try {
            Path accessLog = dir.resolve("access.jsonl");
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            String child = String.join(" ", quoted(java), "-D" + TRACES_ENDPOINT + "=http://127.0.0.1:"
                    + childOtlp.getAddress().getPort() + "/v1/traces", "-cp",
                    quoted(System.getProperty("java.class.path")), Main.class.getName(), "serve", "--stdio", "--traces",
                    "--access-log", quoted(accessLog.toString()));

            Run run = tern("bench", "--traces", "--era", "modern", "--stdio", child, "--connections", "2",
                    "--duration", "30s", "--warmup", "0s", "--max-requests", "20", "-q");

            assertThat(run.exit()).as(run.err()).isZero();
            List<String> traceIds = Files.readAllLines(accessLog).stream()
                    .map(line -> tools.jackson.databind.json.JsonMapper.builder().build().readTree(line))
                    .filter(entry -> entry.path("method").asString("").equals("tools/call"))
                    .map(entry -> entry.path("trace_id").asString("")).toList();
            assertThat(traceIds).hasSize(20).doesNotContain("");
            assertThat(traceIds.stream().distinct()).hasSize(20);
            String exported = exported();
            assertThat(exported).contains(BenchCommand.TRACES_SERVICE_NAME);
            assertThat(traceIds).allSatisfy(id -> assertThat(exported).contains(idBytes(id)));
        } finally {
            childOtlp.stop(0);
        }
    }

    /**
     * The served child has no exporter, so its spans are the context it was given: its access log names the trace
     * of each MCP call only when the call carried one, and that trace is one the bench exported a client span of.
     */
    @Test
    void aComparisonWithTracesPutsAContextInEveryMcpCallOfBothEras(@TempDir Path dir) throws Exception {
        Path accessLog = dir.resolve("access.jsonl");

        Run run = tern("bench", "compare", "--traces", "--connections", "2", "--duration", "1s", "--warmup", "0s",
                "--server-arg=--access-log=" + accessLog, "-q");

        assertThat(run.exit()).as(run.err()).isZero();
        List<tools.jackson.databind.JsonNode> calls = Files.readAllLines(accessLog).stream()
                .map(line -> tools.jackson.databind.json.JsonMapper.builder().build().readTree(line))
                .filter(entry -> entry.path("method").asString("").equals("tools/call")).toList();
        assertThat(calls).extracting(entry -> entry.path("era").asString("")).contains("stateless", "session");
        List<String> traceIds = calls.stream().map(entry -> entry.path("trace_id").asString("")).toList();
        assertThat(traceIds).isNotEmpty().doesNotContain("");
        String exported = exported();
        assertThat(exported).contains(BenchCommand.TRACES_SERVICE_NAME);
        assertThat(traceIds.subList(traceIds.size() - 20, traceIds.size()))
                .allSatisfy(id -> assertThat(exported).contains(idBytes(id)));
    }

    /** A word of a --stdio command line, kept whole by its quotes whatever spaces it holds. */
    private static String quoted(String word) {
        return "'" + word + "'";
    }

    @Test
    void aBenchWithTracesRefusesARestTarget() {
        Run run = tern("bench", "--traces", "--rest", transport.url().replace("/mcp", "/users/7"), "--max-requests",
                "1");

        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.err()).contains("--traces works with --url or --stdio");
    }

    private static SpanData onlyToolCall() throws InterruptedException {
        List<SpanData> calls = toolCalls(1);
        assertThat(calls).as("%s", SERVER_SPANS).hasSize(1);
        return calls.get(0);
    }

    /**
     * The server's {@code tools/call get_user} spans once there are {@code expected} of them, or those there are after
     * 10 s: a span ends just after its response is out, so the client may have its answer a moment before.
     */
    private static List<SpanData> toolCalls(int expected) throws InterruptedException {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
        while (true) {
            List<SpanData> calls = SERVER_SPANS.stream().filter(s -> s.getName().equals("tools/call get_user"))
                    .toList();
            if (calls.size() >= expected || System.nanoTime() > deadline) {
                return calls;
            }
            Thread.sleep(20);
        }
    }

    record Run(int exit, String out, String err) {
    }

    private static Run tern(String... args) {
        return tern(Map.of(), args);
    }

    private static synchronized Run tern(Map<String, String> env, String... args) {
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(e, true, StandardCharsets.UTF_8));
            int exit = Main.run(env, args);
            return new Run(exit, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
    }
}
