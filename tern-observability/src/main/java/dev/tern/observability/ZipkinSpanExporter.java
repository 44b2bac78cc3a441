package dev.tern.observability;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.tern.protocol.Json;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.common.InstrumentationScopeInfo;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.data.StatusData;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import zipkin2.Endpoint;
import zipkin2.Span;
import zipkin2.reporter.BytesEncoder;
import zipkin2.reporter.BytesMessageSender;
import zipkin2.reporter.SpanBytesEncoder;

/**
 * Sends spans to a Zipkin server in Zipkin's own model, encoded and sent by Zipkin's reporter library, mapped as the
 * OpenTelemetry specification's Zipkin exporter section says: kinds, microsecond times, attributes and status as
 * tags, events as annotations, the service name as the local endpoint.
 */
final class ZipkinSpanExporter implements SpanExporter {
    private static final System.Logger LOG = System.getLogger(ZipkinSpanExporter.class.getName());
    private static final AttributeKey<String> SERVICE_NAME = AttributeKey.stringKey("service.name");

    private final BytesMessageSender sender;
    private final BytesEncoder<Span> encoder;
    private final AtomicBoolean failing = new AtomicBoolean();
    private final AtomicBoolean shutdown = new AtomicBoolean();

    ZipkinSpanExporter(BytesMessageSender sender) {
        this.sender = sender;
        this.encoder = SpanBytesEncoder.forEncoding(sender.encoding());
    }

    @Override
    public CompletableResultCode export(Collection<SpanData> spans) {
        if (shutdown.get()) {
            return CompletableResultCode.ofFailure();
        }
        List<byte[]> encoded = new ArrayList<>(spans.size());
        for (SpanData span : spans) {
            encoded.add(encoder.encode(toZipkin(span)));
        }
        try {
            sendInMessagesThatFit(encoded);
        } catch (IOException | RuntimeException e) {
            // One line when sending starts failing, not one per batch while Zipkin stays away.
            if (failing.compareAndSet(false, true)) {
                LOG.log(System.Logger.Level.WARNING, "Zipkin export failed; spans are dropped until it works again", e);
            }
            return CompletableResultCode.ofFailure();
        }
        failing.set(false);
        return CompletableResultCode.ofSuccess();
    }

    private void sendInMessagesThatFit(List<byte[]> encoded) throws IOException {
        int max = sender.messageMaxBytes();
        List<byte[]> message = new ArrayList<>();
        for (byte[] span : encoded) {
            if (sender.messageSizeInBytes(span.length) > max) {
                LOG.log(System.Logger.Level.WARNING, "a span of " + span.length + " bytes is larger than a Zipkin "
                        + "message may be (" + max + " bytes); it is dropped");
                continue;
            }
            message.add(span);
            if (sender.messageSizeInBytes(message) > max) {
                message.removeLast();
                sender.send(message);
                message = new ArrayList<>(List.of(span));
            }
        }
        if (!message.isEmpty()) {
            sender.send(message);
        }
    }

    /** The span in Zipkin's model. */
    static Span toZipkin(SpanData span) {
        Span.Builder b = Span.newBuilder()
                .traceId(span.getTraceId())
                .id(span.getSpanId())
                .name(span.getName())
                .kind(kind(span.getKind()))
                .timestamp(TimeUnit.NANOSECONDS.toMicros(span.getStartEpochNanos()))
                // Zipkin reads a duration of 0 as unknown: a span shorter than a microsecond counts as one.
                .duration(Math.max(1, TimeUnit.NANOSECONDS.toMicros(span.getEndEpochNanos()
                        - span.getStartEpochNanos())))
                .localEndpoint(Endpoint.newBuilder()
                        .serviceName(span.getResource().getAttributes().get(SERVICE_NAME)).build());
        if (span.getParentSpanContext().isValid()) {
            b.parentId(span.getParentSpanId());
        }
        String peer = switch (span.getKind()) {
            case SERVER -> span.getAttributes().get(McpAttributes.CLIENT_ADDRESS);
            case CLIENT -> span.getAttributes().get(McpAttributes.SERVER_ADDRESS);
            default -> null;
        };
        if (peer != null) {
            Endpoint.Builder remote = Endpoint.newBuilder();
            if (remote.parseIp(peer)) {
                b.remoteEndpoint(remote.build());
            }
        }
        span.getAttributes().forEach((key, value) -> b.putTag(key.getKey(), tagValue(value)));
        StatusData status = span.getStatus();
        if (status.getStatusCode() != StatusCode.UNSET) {
            b.putTag("otel.status_code", status.getStatusCode().name());
        }
        if (status.getStatusCode() == StatusCode.ERROR) {
            b.putTag("error", status.getDescription().isEmpty() ? StatusCode.ERROR.name() : status.getDescription());
        }
        InstrumentationScopeInfo scope = span.getInstrumentationScopeInfo();
        b.putTag("otel.scope.name", scope.getName());
        if (scope.getVersion() != null) {
            b.putTag("otel.scope.version", scope.getVersion());
        }
        for (EventData event : span.getEvents()) {
            b.addAnnotation(TimeUnit.NANOSECONDS.toMicros(event.getEpochNanos()), annotation(event));
        }
        return b.build();
    }

    private static Span.Kind kind(SpanKind kind) {
        return switch (kind) {
            case SERVER -> Span.Kind.SERVER;
            case CLIENT -> Span.Kind.CLIENT;
            case PRODUCER -> Span.Kind.PRODUCER;
            case CONSUMER -> Span.Kind.CONSUMER;
            case INTERNAL -> null;
        };
    }

    /** A list attribute as a JSON array, any other as its string form. */
    private static String tagValue(Object value) {
        return value instanceof List<?> list ? Json.mapper().writeValueAsString(list) : String.valueOf(value);
    }

    /** The event's name alone, or with its attributes as {@code {"name":{"key":value}}}. */
    private static String annotation(EventData event) {
        Attributes attributes = event.getAttributes();
        if (attributes.isEmpty()) {
            return event.getName();
        }
        Map<String, Object> values = new TreeMap<>();
        attributes.forEach((key, value) -> values.put(key.getKey(), value));
        return Json.mapper().writeValueAsString(Map.of(event.getName(), values));
    }

    @Override
    public CompletableResultCode flush() {
        return CompletableResultCode.ofSuccess();
    }

    @Override
    public CompletableResultCode shutdown() {
        if (shutdown.compareAndSet(false, true)) {
            try {
                sender.close();
            } catch (IOException e) {
                return CompletableResultCode.ofFailure();
            }
        }
        return CompletableResultCode.ofSuccess();
    }

    @Override
    public String toString() {
        return "ZipkinSpanExporter{" + sender + "}";
    }
}
