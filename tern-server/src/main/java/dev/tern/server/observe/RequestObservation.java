package dev.tern.server.observe;

/**
 * What the server reports about one MCP request or notification, from its first byte to its response written. The
 * server calls these in the order of the request's life, one call at a time (possibly from different threads with a
 * hand-off between them); every setter is optional and returns this observation.
 *
 * <p>When observability is off, {@link McpObserver#request} returns a shared instance whose methods do nothing, so a
 * caller should pass values it already holds and compute nothing for them.
 */
public interface RequestObservation {

    /** The client's address ({@code client.address}), as the transport saw it. */
    RequestObservation clientAddress(String address);

    /** Trace context from the HTTP request's {@code traceparent}, {@code tracestate} and {@code baggage} headers. */
    RequestObservation httpTraceContext(String traceparent, String tracestate, String baggage);

    /**
     * The envelope is decoded: the method, and its low-cardinality target (the tool's name for {@code tools/call},
     * the prompt's for {@code prompts/get}, otherwise null).
     */
    RequestObservation parsed(long nanoTime, String method, String target);

    /** The JSON-RPC id of a request given as a string; notifications have none. */
    RequestObservation requestId(String id);

    /** The JSON-RPC id of a request given as a number. */
    RequestObservation requestId(long id);

    /** Trace context from {@code params._meta}: the unprefixed {@code traceparent}, {@code tracestate}, {@code baggage}. */
    RequestObservation metaTraceContext(String traceparent, String tracestate, String baggage);

    RequestObservation protocolVersion(String version);

    RequestObservation era(Era era);

    /** The legacy session's id ({@code Mcp-Session-Id}); stateless requests have none. */
    RequestObservation session(String sessionId);

    /** Who the request was authenticated as, for the access log. */
    RequestObservation principal(String principal);

    /** The resource's URI for {@code resources/read}, {@code resources/subscribe} and {@code resources/unsubscribe}. */
    RequestObservation resourceUri(String uri);

    /**
     * The handler starts on the calling thread; until the returned scope is closed the request's span is the current
     * one there, so spans the handler starts become its children.
     */
    Scope handlerStarted(long nanoTime);

    RequestObservation handlerEnded(long nanoTime);

    /**
     * The handler sent the client a request of {@code method} and waits for its answer; the returned observation is
     * ended when the answer comes (on the handler's thread).
     */
    OutgoingObservation outgoing(String method, long nanoTime);

    /**
     * The request (a task-augmented {@code tools/call}) created the task {@code taskId}, whose run goes on after the
     * request is answered; the returned observation is ended when the task reaches its terminal status.
     */
    TaskObservation task(String taskId, long nanoTime);

    /** Encoding the response started. */
    RequestObservation encodingStarted(long nanoTime);

    /** The response was written: a result, or a tool's result without {@code isError}. */
    void end(long nanoTime);

    /** The response was a tool's result with {@code isError: true}. */
    void endToolError(long nanoTime);

    /** The response was a JSON-RPC error. */
    void endError(long nanoTime, int code, String message);

    /** The request was cancelled (by the client, or because its connection closed) and gets no response. */
    void endCancelled(long nanoTime, String reason);

    /** Where the request's span is current; closing it restores what was current before. */
    interface Scope extends AutoCloseable {
        /** The scope of a request without a span: closing it does nothing. */
        Scope NONE = () -> {
        };

        @Override
        void close();
    }
}
