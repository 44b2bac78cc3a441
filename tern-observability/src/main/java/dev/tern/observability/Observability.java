package dev.tern.observability;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import dev.tern.server.observe.McpObserver;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.exporter.prometheus.PrometheusMetricReader;
import io.opentelemetry.instrumentation.runtimetelemetry.RuntimeTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.spi.ConfigurationException;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.expositionformats.ExpositionFormats;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * Tern's observability, set up once per process: the OpenTelemetry SDK configured from the standard {@code OTEL_*}
 * variables (OTLP export of traces and metrics when they ask for it, nothing otherwise), Prometheus exposition of the
 * metrics, JVM metrics, and the access log, all behind the {@link #observer()} the server and transports report to.
 */
public final class Observability implements AutoCloseable {
    /** The default of {@code otel.service.name}, when neither the environment nor the builder names the service. */
    public static final String SERVICE_NAME = "tern";

    private final OpenTelemetrySdk sdk;
    private final McpObserver observer;
    private final PrometheusMetricReader prometheus;
    private final HTTPServer prometheusServer;
    private final RuntimeTelemetry runtime;
    private final ClientObserver client;
    private final AccessLog accessLog;
    private final StatusBoard status;
    private final ExpositionFormats formats = ExpositionFormats.init();

    private Observability(Builder b) {
        this.prometheus = b.metrics ? PrometheusMetricReader.builder().build() : null;
        this.prometheusServer = b.metrics && b.metricsPort >= 0 ? startServer(prometheus, b) : null;
        Map<String, String> defaults = new LinkedHashMap<>();
        defaults.put("otel.service.name", b.serviceName);
        // Nothing is sent anywhere unless the OTEL_* variables name an exporter or an OTLP endpoint.
        defaults.put("otel.traces.exporter", otlpEndpointGiven(b.properties, "traces") ? "otlp" : "none");
        defaults.put("otel.metrics.exporter", otlpEndpointGiven(b.properties, "metrics") ? "otlp" : "none");
        defaults.put("otel.logs.exporter", "none");
        if (!b.tracing) {
            // Without Tern's spans no measurement has a sampled span to point to, and the default filter would look
            // for one on every recording.
            defaults.put("otel.metrics.exemplar.filter", "always_off");
        }
        // The SDK's own default is gRPC, for which Tern ships no sender: OTLP goes over HTTP unless the variables ask.
        defaults.put("otel.exporter.otlp.protocol", "http/protobuf");
        // The SDK's default too, pinned: encoding each batch into reused objects halves what exporting costs in GC.
        defaults.put("otel.java.exporter.memory_mode", "reusable_data");
        var auto = AutoConfiguredOpenTelemetrySdk.builder()
                .disableShutdownHook()
                .addPropertiesSupplier(() -> defaults)
                .addPropertiesCustomizer(config -> b.properties)
                .addMeterProviderCustomizer((meters, config) -> {
                    if (prometheus != null) {
                        meters.registerMetricReader(prometheus);
                    }
                    return meters;
                })
                .addTracerProviderCustomizer((tracers, config) -> {
                    b.spanProcessors.forEach(tracers::addSpanProcessor);
                    return tracers;
                });
        try {
            this.sdk = auto.build().getOpenTelemetrySdk();
        } catch (ConfigurationException e) {
            if (prometheusServer != null) {
                prometheusServer.close();
            }
            Throwable cause = e;
            while (cause.getCause() != null && cause.getCause() != cause) {
                cause = cause.getCause();
            }
            throw new IllegalArgumentException("the OTEL_* configuration: " + cause.getMessage(), e);
        }
        this.runtime = b.metrics && b.jvmMetrics ? RuntimeTelemetry.create(sdk) : null;
        OtelMcpObserver otel = b.tracing || b.metrics || b.accessLog != null || b.status
                ? new OtelMcpObserver(sdk, b.tracing, b.metrics, b.accessLog, b.status)
                : null;
        this.observer = otel != null ? otel : McpObserver.off();
        this.status = otel != null ? otel.status : null;
        this.client = new ClientObserver(sdk, b.tracing, b.metrics);
        this.accessLog = b.accessLog;
    }

    /** Whether an OTLP endpoint for the signal is given by the builder, a system property or the environment. */
    private static boolean otlpEndpointGiven(Map<String, String> properties, String signal) {
        for (String key : List.of("otel.exporter.otlp.endpoint", "otel.exporter.otlp." + signal + ".endpoint")) {
            String env = key.toUpperCase(java.util.Locale.ROOT).replace('.', '_');
            if (properties.containsKey(key) || System.getProperty(key) != null || System.getenv(env) != null) {
                return true;
            }
        }
        return false;
    }

    private static HTTPServer startServer(PrometheusMetricReader reader, Builder b) {
        PrometheusRegistry registry = new PrometheusRegistry();
        registry.register(reader);
        try {
            return HTTPServer.builder().hostname(b.metricsHost).port(b.metricsPort).registry(registry).buildAndStart();
        } catch (IOException e) {
            throw new UncheckedIOException("metrics server: cannot listen on " + b.metricsHost + ":" + b.metricsPort, e);
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Where the server and its transports report; {@link McpObserver#off()} when nothing is observed. */
    public McpObserver observer() {
        return observer;
    }

    /** Client spans, context injection into {@code _meta} and the client's histograms, for MCP clients. */
    public ClientObserver client() {
        return client;
    }

    /** The SDK in use, for handlers and libraries that make spans and metrics of their own. */
    public OpenTelemetry openTelemetry() {
        return sdk;
    }

    /** Whether metrics are collected, so that {@link #metrics} answers. */
    public boolean metricsOn() {
        return prometheus != null;
    }

    /** The port of the standalone metrics server, or -1 when there is none. */
    public int metricsPort() {
        return prometheusServer == null ? -1 : prometheusServer.getPort();
    }

    /**
     * The body of a {@code /metrics} response for a request with this {@code Accept} header (null for none): the
     * Prometheus text format, or OpenMetrics when the scraper asks for it.
     *
     * @throws IllegalStateException if metrics are off
     */
    public MetricsBody metrics(String accept) {
        if (prometheus == null) {
            throw new IllegalStateException("metrics are off");
        }
        ExpositionFormatWriter writer = formats.findWriter(accept);
        if (!writer.isAvailable()) {
            writer = formats.getPrometheusTextFormatWriter();
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(16 * 1024);
        try {
            writer.write(out, prometheus.collect());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new MetricsBody(writer.getContentType(), out.toByteArray());
    }

    /** Whether the live figures of {@code /status} are kept, so that {@link #status()} answers. */
    public boolean statusOn() {
        return status != null;
    }

    /**
     * The live figures behind {@code /status}: {@link StatusBoard#json()} for the feed, {@link StatusBoard#page()}
     * for the page that polls it.
     *
     * @throws IllegalStateException if the status board is off
     */
    public StatusBoard status() {
        if (status == null) {
            throw new IllegalStateException("the status board is off");
        }
        return status;
    }

    /** A rendered {@code /metrics} response: its {@code Content-Type} and its body. */
    public record MetricsBody(String contentType, byte[] body) {
    }

    /** Flushes and stops the exporters, the standalone metrics server and the access log's file. */
    @Override
    public void close() {
        if (prometheusServer != null) {
            prometheusServer.close();
        }
        if (runtime != null) {
            runtime.close();
        }
        sdk.close();
        if (accessLog != null) {
            accessLog.close();
        }
    }

    public static final class Builder {
        private boolean tracing;
        private boolean metrics;
        private boolean jvmMetrics = true;
        private String metricsHost = "127.0.0.1";
        private int metricsPort = -1;
        private AccessLog accessLog;
        private boolean status;
        private String serviceName = SERVICE_NAME;
        private final Map<String, String> properties = new LinkedHashMap<>();
        private final List<SpanProcessor> spanProcessors = new ArrayList<>();

        private Builder() {
        }

        /** A server span per request (default off); where they go is {@code OTEL_TRACES_EXPORTER}'s to say. */
        public Builder tracing(boolean on) {
            this.tracing = on;
            return this;
        }

        /** The MCP histograms, the transport's counts and JVM metrics (default off). */
        public Builder metrics(boolean on) {
            this.metrics = on;
            return this;
        }

        /** JVM memory, GC, threads, CPU and classes with the metrics (default on). */
        public Builder jvmMetrics(boolean on) {
            this.jvmMetrics = on;
            return this;
        }

        /** Also serves {@code /metrics} on a port of its own (0 for any free one); implies {@link #metrics}. */
        public Builder metricsServer(String host, int port) {
            if (port < 0 || port > 65_535) {
                throw new IllegalArgumentException("metrics port: " + port + " (expected: 0-65535)");
            }
            this.metricsHost = Objects.requireNonNull(host, "host");
            this.metricsPort = port;
            this.metrics = true;
            return this;
        }

        /** The live figures of a status page: rates, latency percentiles, open streams, recent errors (default off). */
        public Builder status(boolean on) {
            this.status = on;
            return this;
        }

        /**
         * The service's name when neither {@code OTEL_SERVICE_NAME} nor {@code otel.service.name} gives one (default
         * {@value Observability#SERVICE_NAME}), such as {@code tern-call} for a client.
         */
        public Builder serviceName(String name) {
            if (Objects.requireNonNull(name, "name").isBlank()) {
                throw new IllegalArgumentException("service name: blank");
            }
            this.serviceName = name;
            return this;
        }

        /** One JSON line per request (default none). */
        public Builder accessLog(AccessLog log) {
            this.accessLog = log;
            return this;
        }

        /**
         * An SDK property, such as {@code otel.traces.exporter=otlp}, that wins over the {@code OTEL_*} variables and
         * system properties.
         */
        public Builder property(String key, String value) {
            properties.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
            return this;
        }

        /** A span processor beside those the {@code OTEL_*} variables configure, such as one for tests. */
        public Builder spanProcessor(SpanProcessor processor) {
            spanProcessors.add(Objects.requireNonNull(processor, "processor"));
            return this;
        }

        public Observability build() {
            return new Observability(this);
        }
    }
}
