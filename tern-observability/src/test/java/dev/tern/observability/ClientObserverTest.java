package dev.tern.observability;

import static io.opentelemetry.api.common.AttributeKey.stringKey;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;

import dev.tern.server.observe.Transport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;

class ClientObserverTest {
    private final Fixture fixture = new Fixture();

    @AfterEach
    void close() {
        fixture.close();
    }

    @Test
    void theClientsSpanIsTheParentOfTheServersThroughTheContextItPutsInMeta() {
        long t0 = System.nanoTime();
        ClientObserver.Call call = fixture.observability.client()
                .call(Transport.HTTP_1_1, "tools/call", "get_user", t0)
                .requestId(1)
                .protocolVersion("2026-07-28");
        Map<String, String> meta = new LinkedHashMap<>();
        call.injectInto(meta::put);

        fixture.observer.request(Transport.HTTP_1_1, t0 + 10)
                .parsed(t0 + 20, "tools/call", "get_user")
                .metaTraceContext(meta.get("traceparent"), meta.get("tracestate"), meta.get("baggage"))
                .end(t0 + 30);
        call.end(t0 + 40);

        assertThat(meta).containsKey("traceparent");
        SpanData server = fixture.spans.getFinishedSpanItems().get(0);
        SpanData client = fixture.spans.getFinishedSpanItems().get(1);
        assertThat(client.getKind()).isEqualTo(SpanKind.CLIENT);
        assertThat(client.getName()).isEqualTo("tools/call get_user");
        assertThat(client.getAttributes().asMap()).containsEntry(stringKey("jsonrpc.request.id"), "1")
                .containsEntry(stringKey("gen_ai.tool.name"), "get_user");
        assertThat(server.getTraceId()).isEqualTo(client.getTraceId());
        assertThat(server.getParentSpanId()).isEqualTo(client.getSpanId());
    }

    @Test
    void theClientsDurationsAreRecordedInTheirOwnHistograms() {
        long t0 = System.nanoTime();
        ClientObserver client = fixture.observability.client();
        client.call(Transport.STDIO, "tools/call", "get_user", t0).end(t0 + 5_000_000);
        client.call(Transport.STDIO, "tools/call", "get_user", t0).endFailure(t0 + 5_000_000, "timeout");
        client.sessionEnded(Transport.STDIO, "2025-11-25", t0, t0 + 2_000_000_000L, null);

        String text = fixture.metricsText();

        assertThat(Fixture.sample(text, "mcp_client_operation_duration_seconds_count", "gen_ai_tool_name=\"get_user\"",
                "!error_type")).isEqualTo(1);
        assertThat(Fixture.sample(text, "mcp_client_operation_duration_seconds_count", "error_type=\"timeout\""))
                .isEqualTo(1);
        assertThat(Fixture.sample(text, "mcp_client_session_duration_seconds_sum", "network_transport=\"pipe\""))
                .isEqualTo(2.0);
    }

    @Test
    void aClientsServiceNameIsTheBuildersUnlessTheConfigurationNamesOne() {
        assertThat(clientSpanServiceName(Observability.builder().serviceName("tern-call"))).isEqualTo("tern-call");
        assertThat(clientSpanServiceName(Observability.builder().serviceName("tern-call")
                .property("otel.service.name", "nightly-checks"))).isEqualTo("nightly-checks");
    }

    private static String clientSpanServiceName(Observability.Builder builder) {
        InMemorySpanExporter spans = InMemorySpanExporter.create();
        try (Observability o = builder.tracing(true).spanProcessor(SimpleSpanProcessor.create(spans)).build()) {
            long t0 = System.nanoTime();
            o.client().call(Transport.HTTP_1_1, "ping", null, t0).end(t0 + 1);
            return spans.getFinishedSpanItems().get(0).getResource().getAttribute(stringKey("service.name"));
        }
    }
}
