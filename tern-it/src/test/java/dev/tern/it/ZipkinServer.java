package dev.tern.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
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
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import zipkin2.codec.SpanBytesDecoder;

/**
 * A real Zipkin server (the {@code io.zipkin:zipkin-server} runnable jar Maven fetches into tern-it's target) with its
 * in-memory storage on an ephemeral port of 127.0.0.1, and the reads of its API the tests make.
 */
final class ZipkinServer implements AutoCloseable {
    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    private final int port;
    private final Path log;
    private final Process process;

    /** Starts Zipkin, its output in {@code log}; {@link #awaitHealthy()} waits until it takes spans. */
    ZipkinServer(Path log) throws IOException {
        String jar = System.getProperty("tern.zipkinServerJar");
        if (jar == null || !Files.isRegularFile(Path.of(jar))) {
            throw new AssertionError("No Zipkin server jar at " + jar + ": Maven fetches it in tern-it's "
                    + "generate-test-resources phase (./mvnw -pl tern-it generate-test-resources)");
        }
        this.port = freePort();
        this.log = log;
        ProcessBuilder builder = new ProcessBuilder(List.of(TernProcess.javaExecutable(), "-Xmx256m",
                "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-jar", jar,
                "--armeria.ports[0].ip=127.0.0.1", "--armeria.ports[0].port=" + port))
                .redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().put("STORAGE_TYPE", "mem");
        this.process = builder.start();
    }

    /** Where Zipkin takes spans in its JSON format. */
    String spansEndpoint() {
        return "http://127.0.0.1:" + port + "/api/v2/spans";
    }

    /** The variables that make a tern process export its spans to this Zipkin, within 100 ms of their end. */
    Map<String, String> exportEnvironment() {
        return Map.of("OTEL_TRACES_EXPORTER", "zipkin", "OTEL_EXPORTER_ZIPKIN_ENDPOINT", spansEndpoint(),
                "OTEL_BSP_SCHEDULE_DELAY", "100");
    }

    void awaitHealthy() throws Exception {
        URI health = URI.create("http://127.0.0.1:" + port + "/health");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline && process.isAlive()) {
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
        throw new AssertionError("Zipkin did not become healthy; its log:\n" + Files.readString(log));
    }

    /** The trace once Zipkin holds at least {@code spans} spans of it, or what it holds after 20 s. */
    List<zipkin2.Span> awaitTrace(String traceId, int spans) throws Exception {
        URI uri = URI.create("http://127.0.0.1:" + port + "/api/v2/trace/" + traceId);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        List<zipkin2.Span> trace = List.of();
        while (System.nanoTime() < deadline) {
            HttpResponse<byte[]> r = get(uri);
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

    /**
     * The traces with a span of {@code service} once {@code count} of them are {@code complete}, or those there are
     * after 20 s.
     */
    List<List<zipkin2.Span>> awaitTraces(String service, int count, Predicate<List<zipkin2.Span>> complete)
            throws Exception {
        URI uri = URI.create("http://127.0.0.1:" + port + "/api/v2/traces?limit=1000&lookback=3600000&serviceName="
                + URLEncoder.encode(service, StandardCharsets.UTF_8));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        List<List<zipkin2.Span>> traces = List.of();
        while (System.nanoTime() < deadline) {
            HttpResponse<byte[]> r = get(uri);
            assertThat(r.statusCode()).as(new String(r.body(), StandardCharsets.UTF_8)).isEqualTo(200);
            traces = new java.util.ArrayList<>();
            // A list of traces, each a list of spans in Zipkin's v2 JSON.
            for (tools.jackson.databind.JsonNode trace : dev.tern.protocol.Json.mapper().readTree(r.body())) {
                traces.add(SpanBytesDecoder.JSON_V2.decodeList(trace.toString().getBytes(StandardCharsets.UTF_8)));
            }
            if (traces.stream().filter(complete).count() >= count) {
                return traces;
            }
            Thread.sleep(200);
        }
        return traces;
    }

    private static HttpResponse<byte[]> get(URI uri) throws Exception {
        return CLIENT.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.ofByteArray());
    }

    @Override
    public void close() throws InterruptedException {
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
