package dev.tern.server.observe;

/** One legacy session's life, reported when it ends ({@code mcp.server.session.duration}). */
public interface SessionObservation {

    /** The session was closed by the client's DELETE or expired idle. */
    void end(long nanoTime);

    /** The session ended because of an error, such as {@code timeout} or an exception's class name. */
    void endError(long nanoTime, String errorType);
}
