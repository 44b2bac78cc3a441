package dev.tern.observability;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.ToLongFunction;

import dev.tern.server.observe.McpObserver;
import dev.tern.server.observe.RequestObservation;
import dev.tern.server.observe.SessionObservation;
import dev.tern.server.observe.Transport;
import dev.tern.server.observe.TransportStats;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.metrics.ObservableLongMeasurement;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.propagation.TextMapPropagator;

/** The observer that reports to OpenTelemetry: spans, the MCP histograms, the transport's counts, the access log. */
final class OtelMcpObserver implements McpObserver {
    static final String SCOPE = "dev.tern";
    static final AttributeKey<Boolean> TLS_RESUMED = AttributeKey.booleanKey("tls.resumed");
    static final String TLS_HANDSHAKE_FAILED = "tls_handshake_failed";

    final Tracer tracer;
    final TextMapPropagator propagator;
    final DoubleHistogram operationDuration;
    final AccessLog accessLog;
    final EpochClock clock = new EpochClock();
    final Operations operations = new Operations();
    final StatusBoard status;
    private final DoubleHistogram sessionDuration;
    private final Attributes[] sessionAttributes =
            new Attributes[Transport.values().length * (McpAttributes.KNOWN_VERSIONS.size() + 1)];
    private final List<TransportStats> stats = new CopyOnWriteArrayList<>();

    /**
     * Spans when {@code tracing}, histograms and counts when {@code metrics}, log lines when {@code accessLog}, the
     * figures of {@code /status} when {@code status}.
     */
    OtelMcpObserver(OpenTelemetry otel, boolean tracing, boolean metrics, AccessLog accessLog, boolean status) {
        this.tracer = tracing ? otel.getTracer(SCOPE) : null;
        this.propagator = otel.getPropagators().getTextMapPropagator();
        this.accessLog = accessLog;
        this.status = status ? new StatusBoard(clock, this::gauges, System.nanoTime()) : null;
        if (metrics) {
            Meter meter = otel.getMeter(SCOPE);
            operationDuration = meter.histogramBuilder(McpAttributes.SERVER_OPERATION_DURATION)
                    .setUnit("s")
                    .setDescription("MCP request or notification duration as observed on the receiver from the time"
                            + " it was received until the result or ack is sent.")
                    .setExplicitBucketBoundariesAdvice(McpAttributes.DURATION_BUCKETS)
                    .build();
            sessionDuration = meter.histogramBuilder(McpAttributes.SERVER_SESSION_DURATION)
                    .setUnit("s")
                    .setDescription("The duration of the MCP session as observed on the MCP server.")
                    .setExplicitBucketBoundariesAdvice(McpAttributes.DURATION_BUCKETS)
                    .build();
            gauges(meter);
        } else {
            operationDuration = null;
            sessionDuration = null;
        }
    }

    @Override
    public boolean enabled() {
        return true;
    }

    @Override
    public RequestObservation request(Transport transport, long nanoTime) {
        return new OtelRequestObservation(this, transport, nanoTime);
    }

    @Override
    public SessionObservation session(Transport transport, String protocolVersion, long nanoTime) {
        if (sessionDuration == null) {
            return McpObserver.off().session(transport, protocolVersion, nanoTime);
        }
        Attributes attributes = sessionAttributes(transport, protocolVersion);
        return new SessionObservation() {
            @Override
            public void end(long endNanoTime) {
                sessionDuration.record(seconds(endNanoTime - nanoTime), attributes);
            }

            @Override
            public void endError(long endNanoTime, String errorType) {
                sessionDuration.record(seconds(endNanoTime - nanoTime),
                        attributes.toBuilder().put(McpAttributes.ERROR_TYPE, errorType).build());
            }
        };
    }

    private Attributes sessionAttributes(Transport transport, String protocolVersion) {
        int v = McpAttributes.versionIndex(protocolVersion);
        int slot = transport.ordinal() * (McpAttributes.KNOWN_VERSIONS.size() + 1) + v + 1;
        Attributes a = v < 0 && protocolVersion != null ? null : sessionAttributes[slot];
        if (a == null) {
            var b = Operations.network(Attributes.builder(), transport);
            if (protocolVersion != null) {
                b.put(McpAttributes.PROTOCOL_VERSION, protocolVersion);
            }
            a = b.build();
            if (v >= 0 || protocolVersion == null) {
                sessionAttributes[slot] = a;
            }
        }
        return a;
    }

    @Override
    public Registration register(TransportStats transportStats) {
        stats.add(transportStats);
        return () -> stats.remove(transportStats);
    }

    private void gauges(Meter meter) {
        meter.upDownCounterBuilder("tern.server.requests.active").setUnit("{request}")
                .setDescription("MCP requests received and not yet answered.")
                .buildWithCallback(m -> observe(m, TransportStats::requestsInFlight, Attributes.empty()));
        meter.upDownCounterBuilder("tern.server.sessions.active").setUnit("{session}")
                .setDescription("Legacy MCP sessions open.")
                .buildWithCallback(m -> observe(m, TransportStats::sessions, Attributes.empty()));
        meter.upDownCounterBuilder("tern.server.listens.active").setUnit("{stream}")
                .setDescription("Open listens: GET streams and subscriptions/listen.")
                .buildWithCallback(m -> observe(m, TransportStats::listens, Attributes.empty()));
        meter.upDownCounterBuilder("tern.server.sse_streams.active").setUnit("{stream}")
                .setDescription("Open SSE streams of any kind.")
                .buildWithCallback(m -> observe(m, TransportStats::sseStreams, Attributes.empty()));
        meter.counterBuilder("tern.server.requests.shed").setUnit("{request}")
                .setDescription("Requests refused with 503 because the server was full.")
                .buildWithCallback(m -> observe(m, TransportStats::shed, Attributes.empty()));
        meter.counterBuilder("tern.server.requests.refused_by_share").setUnit("{request}")
                .setDescription("Requests refused with 429 because one client held its share.")
                .buildWithCallback(m -> observe(m, TransportStats::refusedByShare, Attributes.empty()));
        meter.gaugeBuilder("tern.server.event_store.size").ofLongs().setUnit("{event}")
                .setDescription("Events held for resumable streams.")
                .buildWithCallback(m -> observe(m, TransportStats::eventStoreSize, Attributes.empty()));
        Attributes full = Attributes.of(TLS_RESUMED, false);
        Attributes resumed = Attributes.of(TLS_RESUMED, true);
        Attributes failed = Attributes.of(McpAttributes.ERROR_TYPE, TLS_HANDSHAKE_FAILED);
        meter.counterBuilder("tern.server.tls.handshakes").setUnit("{handshake}")
                .setDescription("TLS handshakes: completed (in full or resumed, where the transport tells them apart)"
                        + " and failed (with error.type).")
                .buildWithCallback(m -> {
                    if (sum(TransportStats::tlsHandshakesFull) >= 0 || sum(TransportStats::tlsHandshakesResumed) >= 0) {
                        observe(m, TransportStats::tlsHandshakesFull, full);
                        observe(m, TransportStats::tlsHandshakesResumed, resumed);
                    } else {
                        observe(m, TransportStats::tlsHandshakes, Attributes.empty());
                    }
                    observe(m, TransportStats::tlsHandshakeFailures, failed);
                });
    }

    /** The transport's counts by their name in {@code /status.json}; those no transport keeps are left out. */
    Map<String, Long> gauges() {
        Map<String, Long> g = new LinkedHashMap<>();
        gauge(g, "requests_active", TransportStats::requestsInFlight);
        gauge(g, "sessions", TransportStats::sessions);
        gauge(g, "listens", TransportStats::listens);
        gauge(g, "sse_streams", TransportStats::sseStreams);
        gauge(g, "event_store_size", TransportStats::eventStoreSize);
        gauge(g, "shed_total", TransportStats::shed);
        gauge(g, "refused_by_share_total", TransportStats::refusedByShare);
        gauge(g, "tls_handshakes", TransportStats::tlsHandshakes);
        gauge(g, "tls_handshake_failures", TransportStats::tlsHandshakeFailures);
        gauge(g, "tls_handshakes_full", TransportStats::tlsHandshakesFull);
        gauge(g, "tls_handshakes_resumed", TransportStats::tlsHandshakesResumed);
        return g;
    }

    private void gauge(Map<String, Long> g, String name, ToLongFunction<TransportStats> count) {
        long sum = sum(count);
        if (sum >= 0) {
            g.put(name, sum);
        }
    }

    /** The sum of a count over the transports that keep it, or -1 when none does. */
    private long sum(ToLongFunction<TransportStats> count) {
        long sum = 0;
        boolean any = false;
        for (TransportStats s : stats) {
            long v = count.applyAsLong(s);
            if (v >= 0) {
                sum += v;
                any = true;
            }
        }
        return any ? sum : -1;
    }

    private void observe(ObservableLongMeasurement m, ToLongFunction<TransportStats> count, Attributes attributes) {
        long sum = sum(count);
        if (sum >= 0) {
            m.record(sum, attributes);
        }
    }

    static double seconds(long nanos) {
        return Math.max(0, nanos) / 1e9;
    }
}
