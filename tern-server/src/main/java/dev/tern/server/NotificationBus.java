package dev.tern.server;

import java.util.function.Consumer;

/**
 * How the nodes of a cluster tell each other what their clients must hear of: list changes, resource updates,
 * changes to the legacy sessions they share, and clients' responses to requests another node sent. A node delivers
 * what it publishes to its own clients itself, so a bus carries each {@link Notice} to the other nodes only, never
 * back to the one that published it. The default, {@link #LOCAL}, has no other nodes and costs nothing.
 * Implementations must be thread-safe; {@link #publish} must not block on the network.
 */
public interface NotificationBus {

    /** A single node: nothing to publish to, nothing to receive. */
    NotificationBus LOCAL = new NotificationBus() {
        @Override
        public void publish(Notice notice) {
        }

        @Override
        public void subscribe(Consumer<Notice> receiver) {
        }

        @Override
        public String toString() {
            return "NotificationBus.LOCAL";
        }
    };

    /** What one node tells the others. */
    sealed interface Notice {
    }

    /** A list of features changed: {@code list} is {@code tools}, {@code resources} or {@code prompts}. */
    record ListChanged(String list) implements Notice {
    }

    /** The resource at {@code uri} changed. */
    record ResourceUpdated(String uri) implements Notice {
    }

    /** A legacy session's shared state changed or it ended: a node holding a copy takes it up again. */
    record SessionChanged(String sessionId) implements Notice {
    }

    /**
     * A 2025-11-25 client answered, through this node, a request another node sent it on the session
     * {@code sessionId}: {@code message} is the response's JSON, for the node waiting for it.
     */
    record ClientResponse(String sessionId, byte[] message) implements Notice {
    }

    /** A client cancelled, through this node, the task {@code taskId} another node may be running. */
    record TaskCancelled(String taskId) implements Notice {
    }

    /** Sends {@code notice} to every other node; failures are the bus's to log, never the caller's. */
    void publish(Notice notice);

    /**
     * Hands {@code receiver} what the other nodes publish, one notice after the other in the order each node
     * published them, on a thread that may block briefly.
     */
    void subscribe(Consumer<Notice> receiver);
}
