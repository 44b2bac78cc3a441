package dev.tern.server;

import dev.tern.protocol.JsonRpcMessage;
import dev.tern.protocol.RequestId;

/**
 * What a request is served for: a client connection's channel (stdio, a legacy session), or one 2026-07-28 request
 * on its own. It carries what the request sends and learns when the request ends.
 */
interface RequestHost {

    /** Sends a message for the client, unless the host is closed. */
    void send(JsonRpcMessage message, RequestId relatedTo);

    /** The transport's side: how handlers may run and be timed. */
    Outbound outbound();

    /** The request's response is about to go out, or never will: the host forgets it, so its id is free again. */
    void ended(Exchange exchange);

    /** The response of a request the host forgot ({@link #ended}) is out. */
    default void answered() {
    }

    /**
     * A {@code subscriptions/listen} request became an open listen; returns false when the host is closing, and the
     * listen is then to be ended at once.
     */
    boolean listening(Listens.Listen listen);
}
