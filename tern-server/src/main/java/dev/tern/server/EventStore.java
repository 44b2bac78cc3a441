package dev.tern.server;

import java.util.List;
import java.util.Optional;

/**
 * Keeps the SSE events of legacy (2025-11-25 and older) Streamable HTTP sessions so a client that lost a stream can
 * resume it with {@code Last-Event-ID}: only that stream, only of that session. Implementations must be thread-safe
 * and bounded.
 */
public interface EventStore {

    /** One stored event: its id (as sent in the SSE {@code id:} field) and the JSON-RPC message. */
    record Event(String id, byte[] message) {
    }

    /** The events of one stream after a given event, and the stream's id. */
    record Replay(String streamId, List<Event> events) {
    }

    /**
     * The id of the {@code sequence}-th stream a session opened on this node. A store that many nodes share makes it
     * unique across them, since a session's streams may be opened on any of them.
     */
    default String streamId(long sequence) {
        return Long.toString(sequence, 36);
    }

    /** Stores a message sent on a stream and returns the event id to send with it. */
    String append(String sessionId, String streamId, byte[] message);

    /** The id to prime a new stream with, so a client can resume it before any message was sent. */
    String primingId(String sessionId, String streamId);

    /**
     * The events after {@code lastEventId} on the stream it names, if that stream belongs to {@code sessionId} and is
     * still kept; empty otherwise (an unknown, foreign or malformed id replays nothing).
     */
    Optional<Replay> replayAfter(String sessionId, String lastEventId);

    /** Forgets everything of a session. */
    void removeSession(String sessionId);

    /** The events held, for metrics; -1 when the store cannot count them cheaply. */
    default long size() {
        return -1;
    }
}
