package dev.tern.observability;

import java.util.concurrent.TimeUnit;

import dev.tern.protocol.McpMeta;
import dev.tern.server.observe.Era;
import dev.tern.server.observe.OutgoingObservation;
import dev.tern.server.observe.RequestObservation;
import dev.tern.server.observe.TaskObservation;
import dev.tern.server.observe.Transport;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;

/** One request as {@link OtelMcpObserver} sees it: the values the server reported, and its span once started. */
final class OtelRequestObservation implements RequestObservation {
    private static final AttributeKey<Double> PHASE_DURATION = AttributeKey.doubleKey("tern.phase.duration");

    private final OtelMcpObserver observer;
    private final Transport transport;
    private final long received;
    private long parsed;
    private long handlerStarted;
    private long handlerEnded;
    private long encodingStarted;
    private Operations.Operation operation;
    private String clientAddress;
    private String[] httpTrace;
    private String[] metaTrace;
    private String requestId;
    private long numericRequestId;
    private boolean hasNumericRequestId;
    private String protocolVersion;
    private Era era;
    private String session;
    private String principal;
    private String resourceUri;
    private Span span;
    private Context parent = Context.root();

    OtelRequestObservation(OtelMcpObserver observer, Transport transport, long received) {
        this.observer = observer;
        this.transport = transport;
        this.received = received;
    }

    @Override
    public RequestObservation clientAddress(String address) {
        this.clientAddress = address;
        return this;
    }

    @Override
    public RequestObservation httpTraceContext(String traceparent, String tracestate, String baggage) {
        if (observer.tracer != null && (traceparent != null || baggage != null)) {
            this.httpTrace = new String[] {traceparent, tracestate, baggage};
        }
        return this;
    }

    @Override
    public RequestObservation parsed(long nanoTime, String method, String target) {
        this.parsed = nanoTime;
        this.operation = observer.operations.of(method, target);
        return this;
    }

    @Override
    public RequestObservation requestId(String id) {
        this.requestId = id;
        return this;
    }

    @Override
    public RequestObservation requestId(long id) {
        this.numericRequestId = id;
        this.hasNumericRequestId = true;
        return this;
    }

    @Override
    public RequestObservation metaTraceContext(String traceparent, String tracestate, String baggage) {
        if (observer.tracer != null && (traceparent != null || baggage != null)) {
            this.metaTrace = new String[] {traceparent, tracestate, baggage};
        }
        return this;
    }

    @Override
    public RequestObservation protocolVersion(String version) {
        this.protocolVersion = version;
        return this;
    }

    @Override
    public RequestObservation era(Era era) {
        this.era = era;
        return this;
    }

    @Override
    public RequestObservation session(String sessionId) {
        this.session = sessionId;
        return this;
    }

    @Override
    public RequestObservation principal(String principal) {
        this.principal = principal;
        return this;
    }

    @Override
    public RequestObservation resourceUri(String uri) {
        this.resourceUri = uri;
        return this;
    }

    @Override
    public Scope handlerStarted(long nanoTime) {
        this.handlerStarted = nanoTime;
        Span s = span();
        if (s == null) {
            return Scope.NONE;
        }
        io.opentelemetry.context.Scope scope = parent.with(s).makeCurrent();
        return scope::close;
    }

    @Override
    public RequestObservation handlerEnded(long nanoTime) {
        this.handlerEnded = nanoTime;
        return this;
    }

    @Override
    public OutgoingObservation outgoing(String method, long nanoTime) {
        Span request = span();
        if (request == null) {
            return OutgoingObservation.NONE;
        }
        Span s = observer.tracer.spanBuilder(method)
                .setSpanKind(SpanKind.CLIENT)
                .setParent(parent.with(request))
                .setStartTimestamp(observer.clock.epochNanos(nanoTime), TimeUnit.NANOSECONDS)
                .setAttribute(McpAttributes.METHOD, method)
                .startSpan();
        if (session != null) {
            s.setAttribute(McpAttributes.SESSION_ID, session);
        }
        return new OutgoingObservation() {
            @Override
            public void end(long ended) {
                s.end(observer.clock.epochNanos(ended), TimeUnit.NANOSECONDS);
            }

            @Override
            public void endError(long ended, String errorType, String message) {
                s.setAttribute(McpAttributes.ERROR_TYPE, errorType);
                s.setStatus(StatusCode.ERROR, message == null ? "" : message);
                s.end(observer.clock.epochNanos(ended), TimeUnit.NANOSECONDS);
            }
        };
    }

    @Override
    public TaskObservation task(String taskId, long nanoTime) {
        Span request = span();
        if (request == null) {
            return TaskObservation.NONE;
        }
        // The conventions name no span for tasks: the run is a span of its own, a child of the request that created
        // it, as it goes on after the request's span has ended.
        request.setAttribute(McpAttributes.TASK_ID, taskId);
        Operations.Operation op = operation != null ? operation : observer.operations.of("unknown", null);
        SpanBuilder b = observer.tracer.spanBuilder(McpAttributes.TASK_SPAN_PREFIX + op.spanName)
                .setSpanKind(SpanKind.INTERNAL)
                .setParent(parent.with(request))
                .setStartTimestamp(observer.clock.epochNanos(nanoTime), TimeUnit.NANOSECONDS)
                .setAllAttributes(op.spanAttributes)
                .setAttribute(McpAttributes.TASK_ID, taskId);
        if (session != null) {
            b.setAttribute(McpAttributes.SESSION_ID, session);
        }
        if (protocolVersion != null) {
            b.setAttribute(McpAttributes.PROTOCOL_VERSION, protocolVersion);
        }
        Span s = b.startSpan();
        Context context = parent.with(s);
        return new TaskObservation() {
            @Override
            public Scope running() {
                io.opentelemetry.context.Scope scope = context.makeCurrent();
                return scope::close;
            }

            @Override
            public void end(long ended, String status, String errorType, String message) {
                s.setAttribute(McpAttributes.TASK_STATUS, status);
                if (errorType != null) {
                    s.setAttribute(McpAttributes.ERROR_TYPE, errorType);
                    s.setStatus(StatusCode.ERROR, message == null ? "" : message);
                }
                s.end(observer.clock.epochNanos(ended), TimeUnit.NANOSECONDS);
            }
        };
    }

    @Override
    public RequestObservation encodingStarted(long nanoTime) {
        this.encodingStarted = nanoTime;
        return this;
    }

    @Override
    public void end(long nanoTime) {
        finish(nanoTime, null, null, null);
    }

    @Override
    public void endToolError(long nanoTime) {
        finish(nanoTime, McpAttributes.TOOL_ERROR, null, null);
    }

    @Override
    public void endError(long nanoTime, int code, String message) {
        String c = McpAttributes.code(code);
        finish(nanoTime, c, c, message);
    }

    @Override
    public void endCancelled(long nanoTime, String reason) {
        finish(nanoTime, McpAttributes.CANCELLED, null, reason);
    }

    private void finish(long ended, String errorType, String statusCode, String message) {
        if (operation == null) {
            // The request ended before its envelope was decoded: there is no method to name it by.
            operation = observer.operations.of("unknown", null);
        }
        if (observer.operationDuration != null) {
            Attributes attributes = errorType == null
                    ? operation.metric(transport, protocolVersion)
                    : operation.metric(transport, protocolVersion, errorType, statusCode);
            observer.operationDuration.record(OtelMcpObserver.seconds(ended - received), attributes);
        }
        Span s = span();
        if (s != null) {
            // An unsampled span would drop the events, so they are not made.
            if (s.isRecording()) {
                events(s, ended);
            }
            if (errorType != null) {
                s.setAttribute(McpAttributes.ERROR_TYPE, errorType);
                if (statusCode != null) {
                    s.setAttribute(McpAttributes.STATUS_CODE, statusCode);
                }
                s.setStatus(StatusCode.ERROR, message == null ? "" : message);
            }
            s.end(observer.clock.epochNanos(ended), TimeUnit.NANOSECONDS);
        }
        if (observer.status != null) {
            observer.status.record(operation.method, operation.target, ended, ended - received, errorType, message);
        }
        if (observer.accessLog != null) {
            String traceId = s != null && s.getSpanContext().isValid() ? s.getSpanContext().getTraceId() : null;
            observer.accessLog.write(new AccessLog.Entry(observer.clock.epochNanos(ended), operation.method,
                    operation.target, errorType == null ? "ok" : errorType, ended - received, principal, session,
                    traceId, era, requestId()));
        }
    }

    /** The phases of {@code Server-Timing}, each an event at the time it ended with its length in seconds. */
    private void events(Span s, long ended) {
        if (parsed != 0) {
            event(s, "parse", received, parsed);
        }
        if (handlerStarted != 0) {
            event(s, "queue", parsed != 0 ? parsed : received, handlerStarted);
            if (handlerEnded != 0) {
                event(s, "exec", handlerStarted, handlerEnded);
            }
        }
        if (encodingStarted != 0) {
            event(s, "ser", encodingStarted, ended);
        }
    }

    private void event(Span s, String name, long from, long to) {
        s.addEvent(name, Attributes.of(PHASE_DURATION, OtelMcpObserver.seconds(to - from)),
                observer.clock.epochNanos(to), TimeUnit.NANOSECONDS);
    }

    private String requestId() {
        if (requestId == null && hasNumericRequestId) {
            requestId = Long.toString(numericRequestId);
        }
        return requestId;
    }

    /** The request's span, started on first need with the request's arrival as its start; null without tracing. */
    private Span span() {
        if (span != null || observer.tracer == null) {
            return span;
        }
        Operations.Operation op = operation != null ? operation : observer.operations.of("unknown", null);
        Context meta = extract(metaTrace);
        Context http = extract(httpTrace);
        SpanContext metaParent = Span.fromContext(meta).getSpanContext();
        SpanContext httpParent = Span.fromContext(http).getSpanContext();
        SpanBuilder b = observer.tracer.spanBuilder(op.spanName)
                .setSpanKind(SpanKind.SERVER)
                .setStartTimestamp(observer.clock.epochNanos(received), TimeUnit.NANOSECONDS)
                .setAllAttributes(op.spanAttributes);
        // The conventions make the context in _meta the parent and link the transport's, when both are given.
        if (metaParent.isValid() || (metaTrace != null && !httpParent.isValid())) {
            parent = meta;
            if (httpParent.isValid() && !httpParent.equals(metaParent)) {
                b.addLink(httpParent);
            }
        } else {
            parent = http;
        }
        b.setParent(parent);
        b.setAttribute(McpAttributes.NETWORK_TRANSPORT, transport.networkTransport());
        if (transport.protocolName() != null) {
            b.setAttribute(McpAttributes.NETWORK_PROTOCOL_NAME, transport.protocolName());
            b.setAttribute(McpAttributes.NETWORK_PROTOCOL_VERSION, transport.protocolVersion());
        }
        String id = requestId();
        if (id != null) {
            b.setAttribute(McpAttributes.REQUEST_ID, id);
        }
        if (protocolVersion != null) {
            b.setAttribute(McpAttributes.PROTOCOL_VERSION, protocolVersion);
        }
        if (session != null) {
            b.setAttribute(McpAttributes.SESSION_ID, session);
        }
        if (resourceUri != null) {
            b.setAttribute(McpAttributes.RESOURCE_URI, resourceUri);
        }
        if (clientAddress != null) {
            b.setAttribute(McpAttributes.CLIENT_ADDRESS, clientAddress);
        }
        if (era != null) {
            b.setAttribute(McpAttributes.ERA, era.label());
        }
        span = b.startSpan();
        return span;
    }

    private Context extract(String[] carrier) {
        if (carrier == null) {
            return Context.root();
        }
        return observer.propagator.extract(Context.root(), carrier, GETTER);
    }

    /** Reads the three values {@link #httpTraceContext} and {@link #metaTraceContext} keep, in their order. */
    private static final TextMapGetter<String[]> GETTER = (carrier, key) -> {
        if (carrier == null) {
            return null;
        }
        return switch (key) {
            case McpMeta.TRACEPARENT -> carrier[0];
            case McpMeta.TRACESTATE -> carrier[1];
            case McpMeta.BAGGAGE -> carrier[2];
            default -> null;
        };
    };
}
