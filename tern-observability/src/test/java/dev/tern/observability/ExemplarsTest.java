package dev.tern.observability;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;

import dev.tern.server.observe.Transport;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.context.Scope;

import org.junit.jupiter.api.Test;

class ExemplarsTest {
    private static final String OPEN_METRICS = "application/openmetrics-text; version=1.0.0; charset=utf-8";

    /** The OpenMetrics text after one call ended while a sampled span, such as a handler's, was current. */
    private static String afterACallInASampledSpan(boolean tracing) {
        try (Observability observability = Observability.builder().metrics(true).jvmMetrics(false).tracing(tracing)
                .build()) {
            Span span = Span.wrap(SpanContext.create("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7",
                    TraceFlags.getSampled(), TraceState.getDefault()));
            try (Scope ignored = span.makeCurrent()) {
                long t0 = System.nanoTime();
                observability.observer().request(Transport.HTTP_1_1, t0)
                        .parsed(t0 + 1, "tools/call", "get_user")
                        .protocolVersion("2026-07-28")
                        .end(t0 + 2_000_000);
            }
            String text = new String(observability.metrics(OPEN_METRICS).body(), StandardCharsets.UTF_8);
            assertThat(text).contains("mcp_server_operation_duration_seconds_count{");
            return text;
        }
    }

    @Test
    void metricsWithoutTracingRecordNoExemplarsEvenInsideASampledSpan() {
        assertThat(afterACallInASampledSpan(false)).doesNotContain("trace_id");
    }

    @Test
    void metricsWithTracingPointTheirExemplarsToTheSampledSpan() {
        assertThat(afterACallInASampledSpan(true)).contains("trace_id");
    }
}
