package dev.tern.observability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;

import dev.tern.server.observe.Transport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.sun.net.httpserver.HttpServer;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.common.InstrumentationScopeInfo;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.testing.trace.TestSpanData;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.data.StatusData;
import zipkin2.Span;
import zipkin2.codec.SpanBytesDecoder;
import zipkin2.reporter.urlconnection.URLConnectionSender;

/**
 * {@code otel.traces.exporter=zipkin} (the {@code OTEL_TRACES_EXPORTER} variable's equivalent) sends the spans to an
 * HTTP endpoint that keeps what it is sent, read back with Zipkin's own decoder; and the mapping of a span's parts
 * to Zipkin's model. {@code ZipkinTraceTest} (tern-it) sends to a real Zipkin server.
 */
class ZipkinExportTest {
    private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String PARENT_ID = "00f067aa0ba902b7";

    private final List<byte[]> messages = new CopyOnWriteArrayList<>();
    private HttpServer receiver;

    @BeforeEach
    void startReceiver() throws Exception {
        receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        receiver.createContext("/api/v2/spans", exchange -> {
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            boolean gzip = "gzip".equals(exchange.getRequestHeaders().getFirst("Content-Encoding"));
            try (InputStream in = gzip ? new GZIPInputStream(exchange.getRequestBody()) : exchange.getRequestBody()) {
                in.transferTo(body);
            }
            messages.add(body.toByteArray());
            exchange.sendResponseHeaders(202, -1);
            exchange.close();
        });
        receiver.start();
    }

    @AfterEach
    void stopReceiver() {
        receiver.stop(0);
    }

    private String endpoint() {
        return "http://127.0.0.1:" + receiver.getAddress().getPort() + "/api/v2/spans";
    }

    private List<Span> received() {
        List<Span> spans = new ArrayList<>();
        messages.forEach(m -> spans.addAll(SpanBytesDecoder.JSON_V2.decodeList(m)));
        return spans;
    }

    @Test
    void theZipkinExporterNamedByTheOtelPropertiesSendsTheServerSpanInZipkinsModel() {
        try (Observability o = Observability.builder().tracing(true)
                .property("otel.traces.exporter", "zipkin")
                .property("otel.exporter.zipkin.endpoint", endpoint())
                .property("otel.service.name", "tern-test")
                .build()) {
            long t0 = System.nanoTime();
            o.observer().request(Transport.HTTP_1_1, t0).clientAddress("127.0.0.1")
                    .metaTraceContext("00-" + TRACE_ID + "-" + PARENT_ID + "-01", null, null)
                    .parsed(t0 + 1_000, "tools/call", "get_user").end(t0 + 2_000_000);
        }

        assertThat(received()).singleElement().satisfies(span -> {
            assertThat(span.name()).isEqualTo("tools/call get_user");
            assertThat(span.kind()).isEqualTo(Span.Kind.SERVER);
            assertThat(span.traceId()).isEqualTo(TRACE_ID);
            assertThat(span.parentId()).isEqualTo(PARENT_ID);
            assertThat(span.localServiceName()).isEqualTo("tern-test");
            assertThat(span.remoteEndpoint().ipv4()).isEqualTo("127.0.0.1");
            assertThat(span.duration()).isBetween(1_000L, 10_000L);
            assertThat(span.tags()).containsEntry("mcp.method.name", "tools/call")
                    .containsEntry("gen_ai.tool.name", "get_user")
                    .containsEntry("otel.scope.name", OtelMcpObserver.SCOPE);
        });
    }

    @Test
    void statusAttributesAndEventsBecomeTagsAndAnnotations() {
        SpanData data = TestSpanData.builder()
                .setSpanContext(SpanContext.create(TRACE_ID, "b7ad6b7169203331", TraceFlags.getSampled(),
                        TraceState.getDefault()))
                .setParentSpanContext(SpanContext.getInvalid())
                .setResource(Resource.create(Attributes.of(AttributeKey.stringKey("service.name"), "svc")))
                .setInstrumentationScopeInfo(InstrumentationScopeInfo.builder("scope").setVersion("1.2").build())
                .setName("tools/call broken")
                .setKind(SpanKind.INTERNAL)
                .setStartEpochNanos(1_000_000_000L)
                .setEndEpochNanos(1_000_000_400L)
                .setHasEnded(true)
                .setStatus(StatusData.create(StatusCode.ERROR, "Unknown tool: broken"))
                .setAttributes(Attributes.builder().put("error.type", "-32602").put("count", 3L)
                        .put(AttributeKey.stringArrayKey("names"), List.of("a", "b")).build())
                .setEvents(List.of(EventData.create(1_000_000_100L, "parse", Attributes.empty()),
                        EventData.create(1_000_000_200L, "exec",
                                Attributes.of(AttributeKey.doubleKey("mcp.phase.duration"), 0.5))))
                .setTotalRecordedEvents(2)
                .build();

        Span span = ZipkinSpanExporter.toZipkin(data);

        assertThat(span.parentId()).isNull();
        assertThat(span.kind()).isNull();
        assertThat(span.timestamp()).isEqualTo(1_000_000L);
        assertThat(span.duration()).as("shorter than a microsecond counts as one").isEqualTo(1L);
        assertThat(span.localServiceName()).isEqualTo("svc");
        assertThat(span.remoteEndpoint()).isNull();
        assertThat(span.tags()).containsEntry("error", "Unknown tool: broken")
                .containsEntry("otel.status_code", "ERROR")
                .containsEntry("error.type", "-32602")
                .containsEntry("count", "3")
                .containsEntry("names", "[\"a\",\"b\"]")
                .containsEntry("otel.scope.name", "scope")
                .containsEntry("otel.scope.version", "1.2");
        assertThat(span.annotations()).extracting(a -> a.timestamp() + " " + a.value())
                .containsExactly("1000000 parse", "1000000 {\"exec\":{\"mcp.phase.duration\":0.5}}");
    }

    @Test
    void spansBeyondOneMessageAreSentInSeveralThatEachFit() {
        List<SpanData> spans = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            spans.add(TestSpanData.builder()
                    .setSpanContext(SpanContext.create(TRACE_ID, "%016x".formatted(i + 1), TraceFlags.getSampled(),
                            TraceState.getDefault()))
                    .setName("span " + i).setKind(SpanKind.SERVER)
                    .setStartEpochNanos(1_000_000_000L).setEndEpochNanos(2_000_000_000L).setHasEnded(true)
                    .setStatus(StatusData.unset()).build());
        }
        int max = 1_000;
        ZipkinSpanExporter exporter = new ZipkinSpanExporter(URLConnectionSender.newBuilder().endpoint(endpoint())
                .messageMaxBytes(max).build());
        try {
            CompletableResultCode result = exporter.export(spans).join(10, TimeUnit.SECONDS);
            assertThat(result.isSuccess()).isTrue();
        } finally {
            exporter.shutdown();
        }

        assertThat(messages).hasSizeGreaterThan(1).allSatisfy(m -> assertThat(m.length).isLessThanOrEqualTo(max));
        assertThat(received()).extracting(Span::name)
                .containsExactly(spans.stream().map(SpanData::getName).toArray(String[]::new));
    }

    @Test
    void anUnreachableZipkinFailsTheExportAndAShutDownExporterSendsNothing() throws Exception {
        int closedPort;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = free.getLocalPort();
        }
        List<SpanData> one = List.of(TestSpanData.builder()
                .setSpanContext(SpanContext.create(TRACE_ID, PARENT_ID, TraceFlags.getSampled(), TraceState.getDefault()))
                .setName("tools/call get_user").setKind(SpanKind.SERVER)
                .setStartEpochNanos(1L).setEndEpochNanos(2L).setHasEnded(true).setStatus(StatusData.unset()).build());

        ZipkinSpanExporter unreachable = new ZipkinSpanExporter(URLConnectionSender.newBuilder()
                .endpoint("http://127.0.0.1:" + closedPort + "/api/v2/spans").connectTimeout(2_000).build());
        assertThat(unreachable.export(one).join(10, TimeUnit.SECONDS).isSuccess()).isFalse();
        unreachable.shutdown();

        ZipkinSpanExporter exporter = new ZipkinSpanExporter(URLConnectionSender.create(endpoint()));
        assertThat(exporter.export(one).join(10, TimeUnit.SECONDS).isSuccess()).isTrue();
        assertThat(exporter.shutdown().join(10, TimeUnit.SECONDS).isSuccess()).isTrue();
        assertThat(exporter.export(one).join(10, TimeUnit.SECONDS).isSuccess()).isFalse();
        assertThat(messages).hasSize(1);
    }
}
