package dev.tern.observability;

import java.time.Duration;

import io.opentelemetry.sdk.autoconfigure.spi.ConfigProperties;
import io.opentelemetry.sdk.autoconfigure.spi.traces.ConfigurableSpanExporterProvider;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import zipkin2.reporter.urlconnection.URLConnectionSender;

/**
 * The {@code zipkin} span exporter of the SDK's autoconfiguration ({@code OTEL_TRACES_EXPORTER=zipkin}), sending to
 * {@code OTEL_EXPORTER_ZIPKIN_ENDPOINT} within {@code OTEL_EXPORTER_ZIPKIN_TIMEOUT}. The SDK finds it through
 * {@link java.util.ServiceLoader}; it is public for that alone.
 */
public final class ZipkinExporterProvider implements ConfigurableSpanExporterProvider {
    /** The endpoint the specification gives when none is configured. */
    static final String DEFAULT_ENDPOINT = "http://localhost:9411/api/v2/spans";
    private static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

    @Override
    public String getName() {
        return "zipkin";
    }

    @Override
    public SpanExporter createExporter(ConfigProperties config) {
        String endpoint = config.getString("otel.exporter.zipkin.endpoint", DEFAULT_ENDPOINT);
        int timeoutMillis = Math.toIntExact(config.getDuration("otel.exporter.zipkin.timeout", DEFAULT_TIMEOUT)
                .toMillis());
        return new ZipkinSpanExporter(URLConnectionSender.newBuilder().endpoint(endpoint)
                .connectTimeout(timeoutMillis).readTimeout(timeoutMillis).build());
    }
}
