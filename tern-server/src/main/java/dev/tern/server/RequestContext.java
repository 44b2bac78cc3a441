package dev.tern.server;

import java.util.List;

import dev.tern.protocol.Cancellation;
import dev.tern.protocol.ProtocolVersion;
import dev.tern.protocol.RequestId;
import dev.tern.protocol.model.CreateMessageResult;
import dev.tern.protocol.model.ElicitResult;
import dev.tern.protocol.model.Implementation;
import dev.tern.protocol.model.LoggingLevel;
import dev.tern.protocol.model.Root;

import tools.jackson.databind.node.ObjectNode;

import org.jspecify.annotations.Nullable;

/**
 * What a handler knows and can do while serving one request. The same calls work in both eras: in a legacy
 * session asking the client sends a request and waits for the answer; in the 2026-07-28 era it ends this
 * attempt with an {@code input_required} result and the handler runs again when the client retries with the
 * answers, so code before an {@code elicit}/{@code sample}/{@code roots} call must be safe to repeat.
 */
public interface RequestContext {

    RequestId requestId();

    String method();

    ProtocolVersion protocolVersion();

    /** The client's name and version, or {@code null} if it did not say. */
    @Nullable Implementation clientInfo();

    /** The capabilities the client declared; empty if none. */
    ObjectNode clientCapabilities();

    /** The request's {@code _meta}; empty if none. */
    ObjectNode meta();

    /**
     * Who sent the request, as the transport authenticated the caller (its name, scopes and token claims; never the
     * token), or {@code null} when the transport does not authenticate.
     */
    default @Nullable Caller caller() {
        return null;
    }

    /** Cancellation of this request: by the client, a timeout, a closed stream or server shutdown. */
    Cancellation cancellation();

    default boolean isCancelled() {
        return cancellation().isCancelled();
    }

    /**
     * Reports progress if the client asked for it (a {@code progressToken}); values that do not increase are
     * dropped, as the spec requires progress to increase.
     */
    void progress(double progress, @Nullable Double total, @Nullable String message);

    /** Sends a log message to the client if its level is at least the one the client set. */
    void log(LoggingLevel level, @Nullable String logger, @Nullable Object data);

    default void log(LoggingLevel level, @Nullable Object data) {
        log(level, null, data);
    }

    /** Asks the user for structured input through a form described by a flat JSON Schema. */
    ElicitResult elicit(String message, ObjectNode requestedSchema);

    /** Asks the user to complete an interaction at {@code url} out of band (URL mode elicitation). */
    ElicitResult elicitUrl(String message, String url, String elicitationId);

    /** Asks the client's model for a completion; {@code params} are those of {@code sampling/createMessage}. */
    CreateMessageResult sample(ObjectNode params);

    /** The client's roots. */
    List<Root> roots();

    /**
     * Asks the client several things at once, each under a key the handler chooses (unique within the request). In
     * 2026-07-28 every unanswered request goes out in one {@code input_required} result and the handler runs again
     * with the answers; in a legacy session the requests are sent one after another.
     */
    InputAnswers ask(java.util.Map<String, InputRequest> requests);

    /**
     * Ends the part of a tool call that runs before its task, for a tool declared with
     * {@link ToolSpec.Builder#inputBeforeTask(boolean)} when the call becomes a task: the client gets the created
     * task now, and the rest of the handler runs as that task. Anywhere else it does nothing.
     */
    void continueAsTask();
}
