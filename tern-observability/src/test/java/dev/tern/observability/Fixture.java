package dev.tern.observability;

import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;

/** An {@link Observability} with everything on, whose spans land in memory. */
final class Fixture implements AutoCloseable {
    final InMemorySpanExporter spans = InMemorySpanExporter.create();
    final Observability observability;
    final McpObserver observer;

    Fixture() {
        this(null);
    }

    Fixture(AccessLog log) {
        observability = Observability.builder()
                .tracing(true)
                .metrics(true)
                .accessLog(log)
                .spanProcessor(SimpleSpanProcessor.create(spans))
                .build();
        observer = observability.observer();
    }

    String metricsText() {
        return new String(observability.metrics(null).body(), java.nio.charset.StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        observability.close();
    }
}
