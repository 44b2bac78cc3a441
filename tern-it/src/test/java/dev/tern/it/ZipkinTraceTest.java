package dev.tern.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.tern.client.Era;
import dev.tern.client.McpClient;
import dev.tern.observability.Observability;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import zipkin2.codec.SpanBytesDecoder;

/**
 * Traces reach a real Zipkin server: {@code tern serve --traces} with {@code OTEL_TRACES_EXPORTER=zipkin} and a
 * tern-client whose spans go to the same Zipkin, and the trace read back from Zipkin's API joins them: the server's
 * {@code tools/call get_user} span is a child of the client span whose context the client put in {@code _meta}.
 */
class ZipkinTraceTest {
    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private static final String SPAN_NAME = "tools/call get_user";

    @TempDir
    Path dir;

    @Test
    void theServerSpanOfATernClientCallReachesZipkinAsAChildOfTheClientSpanInTheMeta() throws Exception {
        int zipkinPort = freePort();
        String spans = "http://127.0.0.1:" + zipkinPort + "/api/v2/spans";
        // Both start at once, as Zipkin takes several seconds; the call is made once Zipkin answers.
        Process zipkin = startZipkin(zipkinPort);
        try (TernProcess tern = TernProcess.http(Map.of("OTEL_TRACES_EXPORTER", "zipkin",
                "OTEL_EXPORTER_ZIPKIN_ENDPOINT", spans, "OTEL_BSP_SCHEDULE_DELAY", "100"), 0, "user-directory",
                "--traces")) {
            awaitHealthy(zipkinPort, zipkin);

            String traceId;
            String rootId;
            try (Observability client = Observability.builder().tracing(true)
                    .property("otel.traces.exporter", "zipkin")
                    .property("otel.exporter.zipkin.endpoint", spans)
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

            List<zipkin2.Span> trace = awaitTrace(zipkinPort, traceId, 3);
            zipkin2.Span clientSpan = trace.stream().filter(s -> s.kind() == zipkin2.Span.Kind.CLIENT).findFirst()
                    .orElseThrow(() -> new AssertionError("no client span in " + trace));
            zipkin2.Span serverSpan = trace.stream().filter(s -> s.kind() == zipkin2.Span.Kind.SERVER).findFirst()
                    .orElseThrow(() -> new AssertionError("no server span in " + trace + "; tern's stderr:\n"
                            + tern.stderr()));
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
        } finally {
            stop(zipkin);
        }
    }

    /** Zipkin with its in-memory storage on {@code port} of 127.0.0.1, its output in the test's directory. */
    private Process startZipkin(int port) throws IOException {
        String jar = System.getProperty("tern.zipkinServerJar");
        if (jar == null || !Files.isRegularFile(Path.of(jar))) {
            throw new AssertionError("No Zipkin server jar at " + jar + ": Maven fetches it in tern-it's "
                    + "generate-test-resources phase (./mvnw -pl tern-it generate-test-resources)");
        }
        ProcessBuilder builder = new ProcessBuilder(List.of(TernProcess.javaExecutable(), "-Xmx256m",
                "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-jar", jar,
                "--armeria.ports[0].ip=127.0.0.1", "--armeria.ports[0].port=" + port))
                .redirectErrorStream(true).redirectOutput(dir.resolve("zipkin.log").toFile());
        builder.environment().put("STORAGE_TYPE", "mem");
        return builder.start();
    }

    private void awaitHealthy(int port, Process zipkin) throws Exception {
        URI health = URI.create("http://127.0.0.1:" + port + "/health");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline && zipkin.isAlive()) {
            try {
                if (CLIENT.send(HttpRequest.newBuilder(health).timeout(Duration.ofSeconds(5)).build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException notYetListening) {
                // Zipkin is still starting
            }
            Thread.sleep(200);
        }
        throw new AssertionError("Zipkin did not become healthy; its log:\n" + Files.readString(dir.resolve("zipkin.log")));
    }

    /** The trace once Zipkin holds at least {@code spans} spans of it, or what it holds after 20 s. */
    private static List<zipkin2.Span> awaitTrace(int port, String traceId, int spans) throws Exception {
        URI uri = URI.create("http://127.0.0.1:" + port + "/api/v2/trace/" + traceId);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        List<zipkin2.Span> trace = List.of();
        while (System.nanoTime() < deadline) {
            HttpResponse<byte[]> r = CLIENT.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            if (r.statusCode() == 200) {
                trace = SpanBytesDecoder.JSON_V2.decodeList(r.body());
                if (trace.size() >= spans) {
                    return trace;
                }
            } else {
                assertThat(r.statusCode()).as(new String(r.body(), StandardCharsets.UTF_8)).isEqualTo(404);
            }
            Thread.sleep(200);
        }
        return trace;
    }

    private static void stop(Process process) throws InterruptedException {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
