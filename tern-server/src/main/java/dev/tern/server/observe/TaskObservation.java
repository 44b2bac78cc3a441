package dev.tern.server.observe;

/**
 * A task's run, from its creation by a task-augmented {@code tools/call} to its terminal status, which may come long
 * after the request that created it was answered.
 */
public interface TaskObservation {
    /** The observation of a task nobody observes: its methods do nothing. */
    TaskObservation NONE = new TaskObservation() {
        @Override
        public RequestObservation.Scope running() {
            return RequestObservation.Scope.NONE;
        }

        @Override
        public void end(long nanoTime, String status, String errorType, String message) {
        }
    };

    /**
     * The task's handler starts on the calling thread; until the returned scope is closed the task's span is the
     * current one there, so spans the handler starts become its children.
     */
    RequestObservation.Scope running();

    /**
     * The task reached its terminal {@code status} ({@code completed}, {@code failed}, {@code cancelled});
     * {@code errorType} is null when it completed without error, else the JSON-RPC code of its error,
     * {@code tool_error} or {@code cancelled}.
     */
    void end(long nanoTime, String status, String errorType, String message);
}
