package dev.tern.server.observe;

/** The observer and observations used when observability is off: shared, and every method does nothing. */
final class Off implements McpObserver, RequestObservation, SessionObservation, RequestObservation.Scope,
        McpObserver.Registration {
    static final Off OBSERVER = new Off();

    private Off() {
    }

    @Override
    public boolean enabled() {
        return false;
    }

    @Override
    public RequestObservation request(Transport transport, long nanoTime) {
        return this;
    }

    @Override
    public SessionObservation session(Transport transport, String protocolVersion, long nanoTime) {
        return this;
    }

    @Override
    public Registration register(TransportStats stats) {
        return this;
    }

    @Override
    public RequestObservation clientAddress(String address) {
        return this;
    }

    @Override
    public RequestObservation httpTraceContext(String traceparent, String tracestate, String baggage) {
        return this;
    }

    @Override
    public RequestObservation parsed(long nanoTime, String method, String target) {
        return this;
    }

    @Override
    public RequestObservation requestId(String id) {
        return this;
    }

    @Override
    public RequestObservation requestId(long id) {
        return this;
    }

    @Override
    public RequestObservation metaTraceContext(String traceparent, String tracestate, String baggage) {
        return this;
    }

    @Override
    public RequestObservation protocolVersion(String version) {
        return this;
    }

    @Override
    public RequestObservation era(Era era) {
        return this;
    }

    @Override
    public RequestObservation session(String sessionId) {
        return this;
    }

    @Override
    public RequestObservation principal(String principal) {
        return this;
    }

    @Override
    public RequestObservation resourceUri(String uri) {
        return this;
    }

    @Override
    public Scope handlerStarted(long nanoTime) {
        return this;
    }

    @Override
    public RequestObservation handlerEnded(long nanoTime) {
        return this;
    }

    @Override
    public RequestObservation encodingStarted(long nanoTime) {
        return this;
    }

    @Override
    public void end(long nanoTime) {
    }

    @Override
    public void endToolError(long nanoTime) {
    }

    @Override
    public void endError(long nanoTime, int code, String message) {
    }

    @Override
    public void endCancelled(long nanoTime, String reason) {
    }

    @Override
    public OutgoingObservation outgoing(String method, long nanoTime) {
        return OutgoingObservation.NONE;
    }

    @Override
    public TaskObservation task(String taskId, long nanoTime) {
        return TaskObservation.NONE;
    }

    @Override
    public void endError(long nanoTime, String errorType) {
    }

    @Override
    public void close() {
    }
}
