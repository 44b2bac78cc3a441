package dev.tern.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import dev.tern.cli.Main;
import dev.tern.client.Era;
import dev.tern.client.McpClient;
import dev.tern.observability.Observability;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;

/**
 * Traces reach a real Zipkin server: {@code tern serve --traces} with {@code OTEL_TRACES_EXPORTER=zipkin}, and clients
 * whose spans go to the same Zipkin (a tern-client in the test, {@code tern call --traces}, {@code tern bench
 * --traces}); the traces read back from Zipkin's API join them: the server's {@code tools/call get_user} span is a
 * child of the client span whose context the client put in {@code _meta}.
 */
class ZipkinTraceTest {
    private static final String SPAN_NAME = "tools/call get_user";

    @TempDir
    static Path dir;

    private static ZipkinServer zipkin;
    private static TernProcess tern;

    @BeforeAll
    static void start() throws Exception {
        // Both start at once, as Zipkin takes several seconds; the calls are made once Zipkin answers.
        zipkin = new ZipkinServer(dir.resolve("zipkin.log"));
        tern = TernProcess.http(zipkin.exportEnvironment(), 0, "user-directory", "--traces");
        zipkin.awaitHealthy();
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            if (tern != null) {
                tern.close();
            }
        } finally {
            zipkin.close();
        }
    }

    @Test
    void theServerSpanOfATernClientCallReachesZipkinAsAChildOfTheClientSpanInTheMeta() throws Exception {
        String traceId;
        String rootId;
        try (Observability client = Observability.builder().tracing(true)
                .property("otel.traces.exporter", "zipkin")
                .property("otel.exporter.zipkin.endpoint", zipkin.spansEndpoint())
                .property("otel.service.name", "tern-client")
                .build()) {
            Span root = client.openTelemetry().getTracer("zipkin-test").spanBuilder("test").startSpan();
            traceId = root.getSpanContext().getTraceId();
            rootId = root.getSpanContext().getSpanId();
            try (Scope ignored = root.makeCurrent();
                    McpClient mcp = McpClient.http(URI.create(tern.url())).era(Era.MODERN)
                            .tracer(client.client().tracer()).build()) {
                assertThat(mcp.callTool("get_user", Map.of("id", "7")).get(20, TimeUnit.SECONDS).isError())
                        .isNotEqualTo(Boolean.TRUE);
            } finally {
                root.end();
            }
        }

        List<zipkin2.Span> trace = zipkin.awaitTrace(traceId, 3);
        zipkin2.Span clientSpan = span(trace, zipkin2.Span.Kind.CLIENT)
                .orElseThrow(() -> new AssertionError("no client span in " + trace));
        zipkin2.Span serverSpan = serverSpan(trace);
        assertThat(clientSpan.name()).isEqualTo(SPAN_NAME);
        assertThat(clientSpan.localServiceName()).isEqualTo("tern-client");
        assertThat(clientSpan.parentId()).isEqualTo(rootId);
        assertThat(serverSpan.name()).isEqualTo(SPAN_NAME);
        assertThat(serverSpan.localServiceName()).isEqualTo(Observability.SERVICE_NAME);
        assertThat(serverSpan.parentId()).isEqualTo(clientSpan.id());
        assertThat(serverSpan.tags()).containsEntry("mcp.method.name", "tools/call")
                .containsEntry("gen_ai.tool.name", "get_user");
        assertThat(serverSpan.annotations()).extracting(a -> a.value().replaceAll("^\\{\"([a-z]+)\".*", "$1"))
                .contains("parse", "exec", "ser");
    }

    @Test
    void ternCallWithTracesIsTheParentOfTheServersSpanInOneTrace() throws Exception {
        try (TernProcess call = TernProcess.main(zipkin.exportEnvironment(), Main.class, "call", "--traces", "--era",
                "modern", "--url", tern.url(), "tool", "get_user", "{\"id\":\"7\"}")) {
            assertThat(call.waitFor(60, TimeUnit.SECONDS)).as(call.stderr()).isZero();
        }

        List<List<zipkin2.Span>> traces = zipkin.awaitTraces("tern-call", 1, ZipkinTraceTest::clientAndServer);
        assertThat(traces).as("the traces of tern-call in Zipkin").hasSize(1);
        List<zipkin2.Span> trace = traces.get(0);
        zipkin2.Span clientSpan = span(trace, zipkin2.Span.Kind.CLIENT)
                .orElseThrow(() -> new AssertionError("no client span in " + trace));
        zipkin2.Span serverSpan = serverSpan(trace);
        assertThat(clientSpan.name()).isEqualTo(SPAN_NAME);
        assertThat(clientSpan.localServiceName()).isEqualTo("tern-call");
        assertThat(clientSpan.parentId()).isNull();
        assertThat(clientSpan.tags()).containsEntry("gen_ai.tool.name", "get_user");
        assertThat(serverSpan.name()).isEqualTo(SPAN_NAME);
        assertThat(serverSpan.localServiceName()).isEqualTo(Observability.SERVICE_NAME);
        assertThat(serverSpan.parentId()).isEqualTo(clientSpan.id());
        assertThat(serverSpan.traceId()).isEqualTo(clientSpan.traceId());
    }

    @Test
    void everyRequestOfTernBenchWithTracesIsTheParentOfItsServerSpan() throws Exception {
        int requests = 10;
        // Bounded twice: it stops after its 10 requests, or after 30 s at the latest.
        try (TernProcess bench = TernProcess.main(zipkin.exportEnvironment(), Main.class, "bench", "--traces",
                "--era", "modern", "--url", tern.url(), "--rate", "20", "--duration", "30s", "--warmup", "0s",
                "--max-requests", Integer.toString(requests), "-q")) {
            assertThat(bench.waitFor(60, TimeUnit.SECONDS)).as(bench.stderr()).isZero();
        }

        List<List<zipkin2.Span>> traces = zipkin.awaitTraces("tern-bench", requests,
                ZipkinTraceTest::clientAndServer);
        assertThat(traces).as("the traces of tern-bench in Zipkin").hasSize(requests);
        for (List<zipkin2.Span> trace : traces) {
            zipkin2.Span clientSpan = span(trace, zipkin2.Span.Kind.CLIENT)
                    .orElseThrow(() -> new AssertionError("no client span in " + trace));
            assertThat(clientSpan.localServiceName()).isEqualTo("tern-bench");
            assertThat(clientSpan.name()).isEqualTo(SPAN_NAME);
            assertThat(serverSpan(trace).parentId()).as("%s", trace).isEqualTo(clientSpan.id());
        }
    }

    private static boolean clientAndServer(List<zipkin2.Span> trace) {
        return span(trace, zipkin2.Span.Kind.CLIENT).isPresent() && span(trace, zipkin2.Span.Kind.SERVER).isPresent();
    }

    private static Optional<zipkin2.Span> span(List<zipkin2.Span> trace, zipkin2.Span.Kind kind) {
        return trace.stream().filter(s -> s.kind() == kind).findFirst();
    }

    private static zipkin2.Span serverSpan(List<zipkin2.Span> trace) {
        return span(trace, zipkin2.Span.Kind.SERVER).orElseThrow(() -> new AssertionError("no server span in "
                + trace + "; tern's stderr:\n" + tern.stderr()));
    }
}
