package dev.tern.server.observe;

/**
 * A request the server sent its client while serving a request ({@code sampling/createMessage},
 * {@code elicitation/create}, {@code roots/list}), from its sending to the client's answer.
 */
public interface OutgoingObservation {
    /** The observation of an outgoing request nobody observes: its methods do nothing. */
    OutgoingObservation NONE = new OutgoingObservation() {
        @Override
        public void end(long nanoTime) {
        }

        @Override
        public void endError(long nanoTime, String errorType, String message) {
        }
    };

    /** The client answered with a result. */
    void end(long nanoTime);

    /**
     * No result came: the client answered with an error, or did not answer in time, ({@code errorType} is the
     * JSON-RPC code of the error the handler sees), or the request was cancelled ({@code cancelled}).
     */
    void endError(long nanoTime, String errorType, String message);
}
