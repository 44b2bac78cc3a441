package dev.tern.protocol;

import java.util.List;

/** What the codec made of one incoming message (a line on stdio, a body on HTTP). */
public sealed interface Decoded permits Decoded.Single, Decoded.Batch, Decoded.Invalid, Decoded.Ignored {

    /** One well-formed message. */
    record Single(JsonRpcMessage message) implements Decoded {
    }

    /**
     * A JSON array of messages. Each item is a {@link Single}, an {@link Invalid} or an {@link Ignored}. Only a
     * 2025-03-26 session may execute it; everywhere else the whole batch is refused.
     */
    record Batch(List<Decoded> items) implements Decoded {
        public Batch {
            items = List.copyOf(items);
        }
    }

    /** Bytes that are not a valid message; answer with {@code failure}. */
    record Invalid(JsonRpcFailure failure) implements Decoded {
    }

    /** A malformed notification: JSON-RPC forbids answering it, so it is dropped. */
    record Ignored(String reason) implements Decoded {
    }
}
