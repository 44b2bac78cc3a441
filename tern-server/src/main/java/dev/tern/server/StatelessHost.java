package dev.tern.server;

import java.util.function.Consumer;

import dev.tern.protocol.JsonRpcMessage;
import dev.tern.protocol.JsonRpcResponse;
import dev.tern.protocol.RequestId;

/** One 2026-07-28 request served on its own: what it sends goes straight to the transport's {@link Outbound}. */
final class StatelessHost implements RequestHost, StatelessRequest, Consumer<JsonRpcResponse> {
    private final Outbound outbound;
    /** The request being run; {@code null} when it was refused before it ran. */
    volatile Exchange exchange;
    private volatile boolean ended;
    private volatile Listens.Listen listen;
    private volatile boolean closing;
    private volatile boolean closed;

    StatelessHost(Outbound outbound) {
        this.outbound = outbound;
    }

    @Override
    public void send(JsonRpcMessage message, RequestId relatedTo) {
        if (!closed) {
            outbound.send(message, relatedTo);
        }
    }

    /** The response. */
    @Override
    public void accept(JsonRpcResponse response) {
        if (response != null) {
            send(response, response.id());
        }
    }

    @Override
    public Outbound outbound() {
        return outbound;
    }

    @Override
    public void ended(Exchange exchange) {
        ended = true;
    }

    @Override
    public boolean listening(Listens.Listen listen) {
        this.listen = listen;
        return !closing;
    }

    @Override
    public void close() {
        if (closing) {
            return;
        }
        closing = true;
        // Read after closing is set, as listening() sets the listen before it reads closing: one sees the other.
        Listens.Listen l = listen;
        if (l != null) {
            l.end();
        }
        closed = true;
        Exchange e = exchange;
        if (e != null && !ended) {
            e.suppressed = true;
            RequestRunner.cancel(e, "connection closed");
        }
    }
}
