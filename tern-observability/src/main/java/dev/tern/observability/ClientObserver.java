package dev.tern.observability;

import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

import dev.tern.client.ClientTracer;
import dev.tern.client.McpReply;
import dev.tern.server.observe.Transport;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.context.propagation.TextMapSetter;

/**
 * The client's side of the MCP conventions: a CLIENT span per request, its context written into the request's
 * {@code params._meta} so the server's span joins the trace, and {@code mcp.client.operation.duration}.
 */
public final class ClientObserver {
    private static final TextMapSetter<BiConsumer<String, String>> SETTER = (meta, key, value) -> meta.accept(key, value);

    private final Tracer tracer;
    private final TextMapPropagator propagator;
    private final DoubleHistogram operationDuration;
    private final DoubleHistogram sessionDuration;
    private final EpochClock clock = new EpochClock();
    private final Operations operations = new Operations();

    ClientObserver(OpenTelemetry otel, boolean tracing, boolean metrics) {
        this.tracer = tracing ? otel.getTracer(OtelMcpObserver.SCOPE) : null;
        this.propagator = otel.getPropagators().getTextMapPropagator();
        if (metrics) {
            var meter = otel.getMeter(OtelMcpObserver.SCOPE);
            operationDuration = meter.histogramBuilder(McpAttributes.CLIENT_OPERATION_DURATION).setUnit("s")
                    .setDescription("The duration of the MCP request or notification as observed on the sender from"
                            + " the time it was sent until the response or ack is received.")
                    .setExplicitBucketBoundariesAdvice(McpAttributes.DURATION_BUCKETS).build();
            sessionDuration = meter.histogramBuilder(McpAttributes.CLIENT_SESSION_DURATION).setUnit("s")
                    .setDescription("The duration of the MCP session as observed on the MCP client.")
                    .setExplicitBucketBoundariesAdvice(McpAttributes.DURATION_BUCKETS).build();
        } else {
            operationDuration = null;
            sessionDuration = null;
        }
    }

    /**
     * A request about to be sent at {@code nanoTime}; its span starts now, as a child of the current context. The
     * target is the tool's or prompt's name, or null.
     */
    public Call call(Transport transport, String method, String target, long nanoTime) {
        return new Call(transport, operations.of(method, target), nanoTime);
    }

    /**
     * This observer as the tracer a tern-client {@code McpClient} takes: a CLIENT span per request, its context in the
     * request's {@code _meta}, and the client's operation histogram.
     */
    public ClientTracer tracer() {
        return (method, target, http) -> {
            Call call = call(http ? Transport.HTTP_1_1 : Transport.STDIO, method, target, System.nanoTime());
            return new ClientTracer.Call() {
                @Override
                public void inject(BiConsumer<String, String> meta) {
                    call.injectInto(meta);
                }

                @Override
                public void end(McpReply reply, Throwable failure) {
                    long now = System.nanoTime();
                    if (reply == null) {
                        call.endFailure(now, failure == null ? "unknown" : failure.getClass().getName());
                    } else if (reply.error() != null) {
                        call.endError(now, reply.error().code(), reply.error().message());
                    } else if (reply.result() != null && reply.result().path("isError").asBoolean(false)) {
                        call.endToolError(now);
                    } else {
                        call.end(now);
                    }
                }
            };
        };
    }

    /** Records a client session's length when it ends, with {@code errorType} null unless it ended in an error. */
    public void sessionEnded(Transport transport, String protocolVersion, long startNanoTime, long endNanoTime,
                             String errorType) {
        if (sessionDuration == null) {
            return;
        }
        var b = Operations.network(Attributes.builder(), transport);
        if (protocolVersion != null) {
            b.put(McpAttributes.PROTOCOL_VERSION, protocolVersion);
        }
        if (errorType != null) {
            b.put(McpAttributes.ERROR_TYPE, errorType);
        }
        sessionDuration.record(OtelMcpObserver.seconds(endNanoTime - startNanoTime), b.build());
    }

    /** One request the client sends; its methods are called in order, from one thread at a time. */
    public final class Call {
        private final Transport transport;
        private final Operations.Operation operation;
        private final long started;
        private final Span span;
        private String protocolVersion;

        private Call(Transport transport, Operations.Operation operation, long started) {
            this.transport = transport;
            this.operation = operation;
            this.started = started;
            if (tracer == null) {
                this.span = null;
            } else {
                var b = tracer.spanBuilder(operation.spanName).setSpanKind(SpanKind.CLIENT)
                        .setStartTimestamp(clock.epochNanos(started), TimeUnit.NANOSECONDS)
                        .setAllAttributes(operation.spanAttributes)
                        .setAttribute(McpAttributes.NETWORK_TRANSPORT, transport.networkTransport());
                if (transport.protocolName() != null) {
                    b.setAttribute(McpAttributes.NETWORK_PROTOCOL_NAME, transport.protocolName());
                    b.setAttribute(McpAttributes.NETWORK_PROTOCOL_VERSION, transport.protocolVersion());
                }
                this.span = b.startSpan();
            }
        }

        public Call requestId(String id) {
            if (span != null && id != null) {
                span.setAttribute(McpAttributes.REQUEST_ID, id);
            }
            return this;
        }

        public Call requestId(long id) {
            if (span != null) {
                span.setAttribute(McpAttributes.REQUEST_ID, Long.toString(id));
            }
            return this;
        }

        public Call protocolVersion(String version) {
            this.protocolVersion = version;
            if (span != null && version != null) {
                span.setAttribute(McpAttributes.PROTOCOL_VERSION, version);
            }
            return this;
        }

        public Call session(String sessionId) {
            if (span != null && sessionId != null) {
                span.setAttribute(McpAttributes.SESSION_ID, sessionId);
            }
            return this;
        }

        public Call resourceUri(String uri) {
            if (span != null && uri != null) {
                span.setAttribute(McpAttributes.RESOURCE_URI, uri);
            }
            return this;
        }

        public Call serverAddress(String address) {
            if (span != null && address != null) {
                span.setAttribute(McpAttributes.SERVER_ADDRESS, address);
            }
            return this;
        }

        /**
         * Writes this call's trace context into the request's {@code params._meta} as the unprefixed
         * {@code traceparent}, {@code tracestate} and {@code baggage} keys; without tracing, the current context's.
         */
        public void injectInto(BiConsumer<String, String> meta) {
            Context context = span == null ? Context.current() : Context.current().with(span);
            propagator.inject(context, meta, SETTER);
        }

        public void end(long nanoTime) {
            finish(nanoTime, null, null, null);
        }

        public void endToolError(long nanoTime) {
            finish(nanoTime, McpAttributes.TOOL_ERROR, null, null);
        }

        public void endError(long nanoTime, int code, String message) {
            String c = McpAttributes.code(code);
            finish(nanoTime, c, c, message);
        }

        /** The call failed without an answer, such as {@code timeout} or an exception's class name. */
        public void endFailure(long nanoTime, String errorType) {
            finish(nanoTime, errorType, null, null);
        }

        private void finish(long ended, String errorType, String statusCode, String message) {
            if (operationDuration != null) {
                operationDuration.record(OtelMcpObserver.seconds(ended - started), errorType == null
                        ? operation.metric(transport, protocolVersion)
                        : operation.metric(transport, protocolVersion, errorType, statusCode));
            }
            if (span != null) {
                if (errorType != null) {
                    span.setAttribute(McpAttributes.ERROR_TYPE, errorType);
                    if (statusCode != null) {
                        span.setAttribute(McpAttributes.STATUS_CODE, statusCode);
                    }
                    span.setStatus(StatusCode.ERROR, message == null ? "" : message);
                }
                span.end(clock.epochNanos(ended), TimeUnit.NANOSECONDS);
            }
        }
    }
}
