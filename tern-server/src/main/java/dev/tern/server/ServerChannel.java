package dev.tern.server;

import java.time.Duration;

import dev.tern.protocol.Decoded;
import dev.tern.protocol.JsonRpcMessage;

import org.jspecify.annotations.Nullable;

/**
 * One logical connection to a client: a stdio process pipe or a Streamable HTTP session. It accepts both eras:
 * an {@code initialize} opens a legacy session on it, and 2026-07-28 requests are served statelessly. Thread-safe.
 */
public interface ServerChannel extends AutoCloseable {

    /** Handles what the codec decoded from one line or body, answering through the channel's {@link Outbound}. */
    void receive(Decoded decoded);

    void receive(JsonRpcMessage message);

    /** The legacy revision negotiated by {@code initialize}, or {@code null} before (or without) one. */
    dev.tern.protocol.@Nullable ProtocolVersion negotiatedVersion();

    /** What the legacy session settled so far, or {@code null} before (or without) {@code initialize}. */
    default @Nullable LegacySessionState legacyState() {
        return null;
    }

    /**
     * Takes a legacy session's state from a {@link SessionStore}: opens the session as another node's
     * {@code initialize} did, or takes the log level and subscriptions another node changed.
     */
    default void restore(LegacySessionState state) {
        throw new UnsupportedOperationException("this channel cannot restore a session");
    }

    /** Requests being served right now. */
    int inFlight();

    /**
     * Whether a request this channel sent the client ({@code elicitation/create}, {@code sampling/createMessage},
     * {@code roots/list}) waits for a response with that id here; a response that none waits for may belong to
     * another node serving the same session.
     */
    default boolean awaits(dev.tern.protocol.RequestId id) {
        return false;
    }

    /** Waits up to {@code timeout} for the in-flight requests to finish; returns true if they did. */
    boolean awaitIdle(Duration timeout) throws InterruptedException;

    /** Cancels in-flight requests and drops the session state. Idempotent. */
    @Override
    void close();
}
