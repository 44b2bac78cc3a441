package dev.tern.client;

import java.util.function.BiConsumer;

import org.jspecify.annotations.Nullable;

/**
 * Where a client reports the requests it sends, such as OpenTelemetry's CLIENT spans (tern-observability's
 * {@code ClientObserver.tracer()}): each request is started before it is sent, writes its trace context into the
 * request's {@code params._meta} so that the server's span joins the trace, and is ended with its reply.
 */
public interface ClientTracer {

    /** A request about to be sent: its method and its tool's or prompt's name (null for other methods). */
    Call start(String method, @Nullable String target, boolean http);

    /** One request being sent. */
    interface Call {
        /** Writes the trace context into the request's {@code _meta} ({@code traceparent}, {@code tracestate}, ...). */
        void inject(BiConsumer<String, String> meta);

        /** The reply came (possibly an error response), or the request failed without one ({@code failure}). */
        void end(@Nullable McpReply reply, @Nullable Throwable failure);
    }
}
