package dev.tern.observability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.tern.server.observe.Transport;

import org.junit.jupiter.api.Test;

import com.sun.net.httpserver.HttpServer;

/**
 * OTLP export as the {@code otel.*} properties (the {@code OTEL_*} variables' equivalents) configure it, received by
 * an HTTP endpoint that keeps what it is sent. It checks what reaches the wire, not a collector's handling of it.
 */
class OtlpExportTest {

    @Test
    void anOtlpEndpointAloneSendsSpansAndMetricsThere() throws Exception {
        try (Receiver receiver = new Receiver()) {
            try (Observability o = Observability.builder().tracing(true).metrics(true).jvmMetrics(false)
                    .property("otel.exporter.otlp.protocol", "http/protobuf")
                    .property("otel.exporter.otlp.endpoint", receiver.url())
                    .build()) {
                long t0 = System.nanoTime();
                o.observer().request(Transport.HTTP_1_1, t0).parsed(t0 + 1, "tools/call", "get_user").end(t0 + 2);
            }

            assertThat(receiver.received).containsKeys("/v1/traces", "/v1/metrics");
            assertThat(receiver.contentTypes.get("/v1/traces")).isEqualTo("application/x-protobuf");
            assertThat(new String(receiver.received.get("/v1/traces"), StandardCharsets.ISO_8859_1))
                    .contains("tools/call get_user", "gen_ai.tool.name");
            assertThat(new String(receiver.received.get("/v1/metrics"), StandardCharsets.ISO_8859_1))
                    .contains("mcp.server.operation.duration");
        }
    }

    @Test
    void withoutAProtocolOtlpGoesOverHttpAsProtobufForWhichTernHasASender() throws Exception {
        try (Receiver receiver = new Receiver()) {
            try (Observability o = Observability.builder().tracing(true)
                    .property("otel.exporter.otlp.endpoint", receiver.url())
                    .build()) {
                long t0 = System.nanoTime();
                o.observer().request(Transport.HTTP_1_1, t0).parsed(t0 + 1, "tools/list", null).end(t0 + 2);
            }

            assertThat(receiver.contentTypes).containsEntry("/v1/traces", "application/x-protobuf");
            assertThat(new String(receiver.received.get("/v1/traces"), StandardCharsets.ISO_8859_1))
                    .contains("tools/list");
        }
    }

    @Test
    void theOtlpExporterReusesItsMemoryUnlessTheVariablesSayOtherwise() {
        try (Observability o = Observability.builder().tracing(true)
                .property("otel.exporter.otlp.endpoint", "http://127.0.0.1:4318")
                .build()) {
            assertThat(o.openTelemetry().toString()).contains("OtlpHttpSpanExporter{", "memoryMode=REUSABLE_DATA");
        }
        try (Observability o = Observability.builder().tracing(true)
                .property("otel.exporter.otlp.endpoint", "http://127.0.0.1:4318")
                .property("otel.java.exporter.memory_mode", "immutable_data")
                .build()) {
            assertThat(o.openTelemetry().toString()).contains("OtlpHttpSpanExporter{", "memoryMode=IMMUTABLE_DATA")
                    .doesNotContain("memoryMode=REUSABLE_DATA");
        }
    }

    @Test
    void otlpOverGrpcIsRefusedWithTheReasonAsTernShipsNoGrpcSender() {
        assertThatThrownBy(() -> Observability.builder().tracing(true)
                .property("otel.exporter.otlp.protocol", "grpc")
                .property("otel.exporter.otlp.endpoint", "http://127.0.0.1:4317")
                .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("the OTEL_* configuration: ")
                .hasMessageContaining("GrpcSenderProvider");
    }

    /** An HTTP endpoint on 127.0.0.1 that keeps the bodies it is sent, per path, and answers 200. */
    private static final class Receiver implements AutoCloseable {
        final Map<String, byte[]> received = new ConcurrentHashMap<>();
        final Map<String, String> contentTypes = new ConcurrentHashMap<>();
        private final HttpServer server;

        Receiver() throws IOException {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            server.createContext("/", exchange -> {
                ByteArrayOutputStream body = new ByteArrayOutputStream();
                exchange.getRequestBody().transferTo(body);
                received.merge(exchange.getRequestURI().getPath(), body.toByteArray(), Receiver::concat);
                contentTypes.put(exchange.getRequestURI().getPath(),
                        exchange.getRequestHeaders().getFirst("Content-Type"));
                exchange.sendResponseHeaders(200, -1);
                exchange.close();
            });
            server.start();
        }

        String url() {
            return "http://127.0.0.1:" + server.getAddress().getPort();
        }

        private static byte[] concat(byte[] a, byte[] b) {
            byte[] both = new byte[a.length + b.length];
            System.arraycopy(a, 0, both, 0, a.length);
            System.arraycopy(b, 0, both, a.length, b.length);
            return both;
        }

        @Override
        public void close() {
            server.stop(0);
        }
    }
}
