package dev.tern.server;

/**
 * A 2026-07-28 request handed to {@link McpServer#serve}, served on its own: no channel, no session. Thread-safe.
 */
public interface StatelessRequest extends AutoCloseable {

    /**
     * The client is gone or the server shuts down: cancels the request if it still runs (nothing more is sent for
     * it), or ends the {@code subscriptions/listen} it opened with its final result. Idempotent; does nothing once
     * the response is out.
     */
    @Override
    void close();
}
