package dev.tern.server;

import java.util.List;

import dev.tern.protocol.JsonRpcMessage;
import dev.tern.protocol.RequestId;
import dev.tern.server.observe.RequestObservation;

import org.jspecify.annotations.Nullable;

/**
 * Where a channel writes what it sends: responses, notifications and server-to-client requests. A transport
 * implements it. Implementations must be thread-safe: handlers on different threads send concurrently.
 */
@FunctionalInterface
public interface Outbound {

    /**
     * Sends one message.
     *
     * @param relatedTo the client request this message belongs to (a response, or progress, a log or a
     *        server-to-client request sent while serving it), or {@code null} for a message tied to no request.
     *        Streamable HTTP routes by it; stdio ignores it.
     */
    void send(JsonRpcMessage message, @Nullable RequestId relatedTo);

    /**
     * Tells, just before a request's response is sent on the same thread, when its handler started and ended
     * ({@link System#nanoTime()}), so a transport can report where the time went (HTTP {@code Server-Timing}).
     * Called only when {@link #timesHandlers()} says so.
     */
    default void served(RequestId request, long handlerStartedNanos, long handlerEndedNanos) {
    }

    /**
     * What the transport observed of a request it received (its arrival, client, HTTP trace context), for the server
     * to complete and end; {@code null}, the default, when it observed nothing. {@code request} is {@code null} for a
     * notification or a message refused before its id was read: a transport that observes those itself answers
     * {@code null}. Called on the thread that hands the message to {@link ServerChannel#receive}, only when the
     * server's {@link McpServer#observer()} is enabled.
     */
    default @Nullable RequestObservation observation(@Nullable RequestId request) {
        return null;
    }

    /** Whether the handlers of the requests received from now on are timed for {@link #served}; the default, no. */
    default boolean timesHandlers() {
        return false;
    }

    /**
     * Whether a tool call, resource read or prompt whose handler promised never to block ({@link ToolSpec#nonBlocking()})
     * may run on the thread that hands the request to {@link ServerChannel#receive}, whose response is then sent from
     * that same thread before {@code receive} returns. The default, {@code false}, runs every handler on a virtual
     * thread of its own.
     */
    default boolean runsNonBlockingHandlersInline() {
        return false;
    }

    /** Who sent the requests this outbound answers, as the transport authenticated them; by default unknown. */
    default @Nullable Caller caller() {
        return null;
    }

    /**
     * A legacy session's state changed ({@code initialize}, {@code logging/setLevel}, {@code resources/subscribe} or
     * {@code unsubscribe}): called on the request's thread before its response is sent, so that a transport sharing
     * sessions through a {@link SessionStore} saves {@link ServerChannel#legacyState()} before the client can go to
     * another node. The default keeps nothing.
     */
    default void sessionStateChanged() {
    }

    /**
     * A request failed because a shared store ({@link SessionStore}, {@link TaskStore}, a {@link TaskQueue}) cannot
     * answer: called on the request's thread just before its failure is sent, so that a transport answers it as a
     * temporary outage (HTTP 503 with Retry-After). The default does nothing.
     */
    default void storeUnavailable(RequestId request) {
    }

    /**
     * The id of the legacy session this outbound serves, the same on every node that serves it, or {@code null} (the
     * default) when it serves a connection of its own. A session's tasks belong to the session, so that another node
     * serving it finds them.
     */
    default @Nullable String sessionId() {
        return null;
    }

    /**
     * The principal the messages received through this outbound come from (an HTTP request's resolved principal,
     * the one a session is bound to), or {@code null} when anonymous. Private cached results are kept per principal.
     */
    default @Nullable String principal() {
        return null;
    }

    /**
     * Sends the responses to a JSON-RPC batch (2025-03-26 only) as one array. The default sends them one by one,
     * which suits no transport that speaks 2025-03-26; transports override it.
     */
    default void sendBatch(List<? extends JsonRpcMessage> responses) {
        for (JsonRpcMessage m : responses) {
            send(m, null);
        }
    }
}
