package dev.tern.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import dev.tern.cli.Main;
import dev.tern.observability.Observability;

import org.junit.jupiter.api.Test;

import com.sun.net.httpserver.HttpServer;

import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;

/**
 * {@code tern serve --traces} and {@code tern call --traces} configured by {@code OTEL_EXPORTER_OTLP_ENDPOINT} alone,
 * as the documentation says, export over OTLP to an endpoint of the test's that decodes the messages with the
 * OpenTelemetry protocol's own classes; the server's span is a child of the call's. This is an endpoint in the test,
 * not an OpenTelemetry Collector: none can be started where the tests run.
 */
class OtlpTraceTest {
    private static final String SPAN_NAME = "tools/call get_user";

    /** A span as received, with the service that exported it. */
    record Received(String service, Span span) {
    }

    @Test
    void theServerSpanOfTernCallReachesAnOtlpEndpointAsAChildOfTheCallsSpan() throws Exception {
        List<Received> received = new CopyOnWriteArrayList<>();
        HttpServer otlp = receiver(received);
        Map<String, String> env = Map.of("OTEL_EXPORTER_OTLP_ENDPOINT",
                "http://127.0.0.1:" + otlp.getAddress().getPort(), "OTEL_BSP_SCHEDULE_DELAY", "100");
        try (TernProcess tern = TernProcess.http(env, 0, "user-directory", "--traces")) {
            try (TernProcess call = TernProcess.main(env, Main.class, "call", "--traces", "--era", "modern", "--url",
                    tern.url(), "tool", "get_user", "{\"id\":\"7\"}")) {
                assertThat(call.waitFor(60, TimeUnit.SECONDS)).as(call.stderr()).isZero();
            }

            Received client = await(received, "tern-call", Span.SpanKind.SPAN_KIND_CLIENT);
            Received server = await(received, Observability.SERVICE_NAME, Span.SpanKind.SPAN_KIND_SERVER);
            assertThat(client).as("the call's span among %s", received).isNotNull();
            assertThat(server).as("the server's span among %s; its stderr:%n%s", received, tern.stderr()).isNotNull();
            assertThat(client.span().getParentSpanId().isEmpty()).isTrue();
            assertThat(hex(server.span().getTraceId())).isEqualTo(hex(client.span().getTraceId()));
            assertThat(hex(server.span().getParentSpanId())).isEqualTo(hex(client.span().getSpanId()));
            assertThat(server.span().getAttributesList()).extracting(KeyValue::getKey)
                    .contains("mcp.method.name", "gen_ai.tool.name", "jsonrpc.request.id");
        } finally {
            otlp.stop(0);
        }
    }

    /** An OTLP/HTTP endpoint on 127.0.0.1 that decodes the spans it is sent and answers 200 to everything. */
    private static HttpServer receiver(List<Received> received) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            byte[] body = exchange.getRequestBody().readAllBytes();
            if (exchange.getRequestURI().getPath().equals("/v1/traces")) {
                for (ResourceSpans resourceSpans : ExportTraceServiceRequest.parseFrom(body).getResourceSpansList()) {
                    String service = service(resourceSpans.getResource());
                    for (ScopeSpans scope : resourceSpans.getScopeSpansList()) {
                        scope.getSpansList().forEach(span -> received.add(new Received(service, span)));
                    }
                }
            }
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        server.start();
        return server;
    }

    private static String service(Resource resource) {
        return resource.getAttributesList().stream().filter(a -> a.getKey().equals("service.name"))
                .map(a -> a.getValue().getStringValue()).findFirst().orElse(null);
    }

    /** The {@code tools/call get_user} span of this service and kind, once received, or null after 20 s. */
    private static Received await(List<Received> received, String service, Span.SpanKind kind)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            for (Received r : received) {
                if (service.equals(r.service()) && r.span().getKind() == kind && r.span().getName().equals(SPAN_NAME)) {
                    return r;
                }
            }
            Thread.sleep(100);
        }
        return null;
    }

    private static String hex(com.google.protobuf.ByteString bytes) {
        return HexFormat.of().formatHex(bytes.toByteArray());
    }
}
