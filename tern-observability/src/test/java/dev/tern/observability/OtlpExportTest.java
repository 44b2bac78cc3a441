package dev.tern.observability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
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
        Map<String, byte[]> received = new ConcurrentHashMap<>();
        Map<String, String> contentTypes = new ConcurrentHashMap<>();
        HttpServer receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        receiver.createContext("/", exchange -> {
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            exchange.getRequestBody().transferTo(body);
            received.merge(exchange.getRequestURI().getPath(), body.toByteArray(), OtlpExportTest::concat);
            contentTypes.put(exchange.getRequestURI().getPath(), exchange.getRequestHeaders().getFirst("Content-Type"));
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        receiver.start();
        try {
            try (Observability o = Observability.builder().tracing(true).metrics(true).jvmMetrics(false)
                    .property("otel.exporter.otlp.protocol", "http/protobuf")
                    .property("otel.exporter.otlp.endpoint", "http://127.0.0.1:" + receiver.getAddress().getPort())
                    .build()) {
                long t0 = System.nanoTime();
                o.observer().request(Transport.HTTP_1_1, t0).parsed(t0 + 1, "tools/call", "get_user").end(t0 + 2);
            }

            assertThat(received).containsKeys("/v1/traces", "/v1/metrics");
            assertThat(contentTypes.get("/v1/traces")).isEqualTo("application/x-protobuf");
            assertThat(new String(received.get("/v1/traces"), StandardCharsets.ISO_8859_1))
                    .contains("tools/call get_user", "gen_ai.tool.name");
            assertThat(new String(received.get("/v1/metrics"), StandardCharsets.ISO_8859_1))
                    .contains("mcp.server.operation.duration");
        } finally {
            receiver.stop(0);
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] both = new byte[a.length + b.length];
        System.arraycopy(a, 0, both, 0, a.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        return both;
    }
}
