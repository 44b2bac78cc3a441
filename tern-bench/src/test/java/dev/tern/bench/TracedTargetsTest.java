package dev.tern.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BiConsumer;

import dev.tern.bench.targets.Era;
import dev.tern.bench.targets.StdioMcpTarget;
import dev.tern.bench.targets.WebSocketMcpTarget;
import dev.tern.client.ClientTracer;
import dev.tern.client.McpReply;
import dev.tern.protocol.WireFormat;
import dev.tern.server.McpServer;
import dev.tern.transport.http.HttpServerTransport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bench's WebSocket and stdio targets with a tracer against real servers: every call carries the context of a span of
 * its own in its {@code _meta}, in both eras, and each span ends with the call's reply.
 */
class TracedTargetsTest {
    private static final Operation TRACED = Operation.callTool("traced", "{}");
    private static final int CALLS = 40;

    /** A tracer that gives each call a traceparent of its own and keeps those it gave and the calls it saw end. */
    private static final class Recording implements ClientTracer {
        final List<String> injected = new CopyOnWriteArrayList<>();
        final List<Boolean> overHttp = new CopyOnWriteArrayList<>();
        final List<McpReply> ended = new CopyOnWriteArrayList<>();

        @Override
        public Call start(String method, String target, boolean http) {
            overHttp.add(http);
            String traceparent = "00-" + hex(16) + "-" + hex(8) + "-01";
            return new Call() {
                @Override
                public void inject(BiConsumer<String, String> meta) {
                    injected.add(traceparent);
                    meta.accept("traceparent", traceparent);
                }

                @Override
                public void end(McpReply reply, Throwable failure) {
                    ended.add(reply);
                }
            };
        }

        private static String hex(int bytes) {
            byte[] b = new byte[bytes];
            ThreadLocalRandom.current().nextBytes(b);
            return HexFormat.of().formatHex(b);
        }
    }

    @Test
    void everyWebSocketCallCarriesAContextOfItsOwnInEitherEraAndEncoding() throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        McpServer server = MetaRecordingServer.server(seen::add);
        try (HttpServerTransport transport = HttpServerTransport.builder(server).host("127.0.0.1").port(0).build()
                .start()) {
            URI ws = URI.create(transport.webSocketUrl());
            for (Era era : List.of(Era.MODERN, Era.LEGACY)) {
                for (WireFormat format : List.of(WireFormat.JSON, WireFormat.CBOR)) {
                    seen.clear();
                    Recording tracer = new Recording();
                    WebSocketMcpTarget target = WebSocketMcpTarget.of(ws, era, false, Duration.ofSeconds(10), 2,
                            format).tracer(tracer);

                    RunResult r = run(target);

                    String as = era + " " + format;
                    assertThat(r.ok()).as(as + " %s", r.errorSamples()).isEqualTo(CALLS);
                    assertThat(seen).as(as).hasSize(CALLS).doesNotContain("none")
                            .containsExactlyInAnyOrderElementsOf(tracer.injected);
                    assertThat(tracer.overHttp).as(as).hasSize(CALLS).containsOnly(true);
                    assertThat(tracer.ended).as(as).hasSize(CALLS).allSatisfy(reply -> assertThat(reply).isNotNull());
                }
            }
        } finally {
            server.close();
        }
    }

    @Test
    void everyStdioCallCarriesAContextOfItsOwnInEitherEra(@TempDir Path dir) throws Exception {
        for (Era era : List.of(Era.MODERN, Era.LEGACY)) {
            Path seen = dir.resolve(era + ".txt");
            Recording tracer = new Recording();
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            StdioMcpTarget target = StdioMcpTarget.of(List.of(java, "-cp", System.getProperty("java.class.path"),
                    MetaRecordingServer.class.getName(), seen.toString()), era, Duration.ofSeconds(10)).tracer(tracer);

            RunResult r = run(target);

            assertThat(r.ok()).as(era + " %s", r.errorSamples()).isEqualTo(CALLS);
            assertThat(Files.readAllLines(seen)).as(era.toString()).hasSize(CALLS).doesNotContain("none")
                    .containsExactlyInAnyOrderElementsOf(tracer.injected);
            assertThat(tracer.overHttp).as(era.toString()).hasSize(CALLS).containsOnly(false);
            assertThat(tracer.ended).as(era.toString()).hasSize(CALLS).allSatisfy(reply -> assertThat(reply).isNotNull());
        }
    }

    @Test
    void withoutATracerAStdioCallCarriesNoContext(@TempDir Path dir) throws Exception {
        Path seen = dir.resolve("untraced.txt");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        StdioMcpTarget target = StdioMcpTarget.of(List.of(java, "-cp", System.getProperty("java.class.path"),
                MetaRecordingServer.class.getName(), seen.toString()), Era.MODERN, Duration.ofSeconds(10));

        RunResult r = run(target);

        assertThat(r.ok()).isEqualTo(CALLS);
        assertThat(Files.readAllLines(seen)).hasSize(CALLS).containsOnly("none");
    }

    private static RunResult run(Target target) throws Exception {
        try (LoadRunner runner = LoadRunner.of(target, Workload.of(TRACED))) {
            return runner.run("traced", LoadSpec.closedLoop(4, Duration.ofSeconds(30)).withMaxRequests(CALLS));
        }
    }
}
