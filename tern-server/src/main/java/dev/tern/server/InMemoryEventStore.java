package dev.tern.server;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Events in memory, bounded per stream (count and bytes) and per session (streams, least recently used dropped
 * first). Event ids are {@code <streamId>_<sequence>}. Thread-safe.
 */
public final class InMemoryEventStore implements EventStore {
    private final int maxEventsPerStream;
    private final long maxBytesPerStream;
    private final int maxStreamsPerSession;
    private final Map<String, Map<String, Stream>> sessions = new ConcurrentHashMap<>();

    public InMemoryEventStore() {
        this(256, 1024 * 1024, 64);
    }

    public InMemoryEventStore(int maxEventsPerStream, long maxBytesPerStream, int maxStreamsPerSession) {
        if (maxEventsPerStream <= 0 || maxBytesPerStream <= 0 || maxStreamsPerSession <= 0) {
            throw new IllegalArgumentException("limits must be > 0");
        }
        this.maxEventsPerStream = maxEventsPerStream;
        this.maxBytesPerStream = maxBytesPerStream;
        this.maxStreamsPerSession = maxStreamsPerSession;
    }

    private static final class Stream {
        final Deque<Event> events = new ArrayDeque<>();
        long bytes;
        long sequence;
    }

    @Override
    public String append(String sessionId, String streamId, byte[] message) {
        Stream stream = stream(sessionId, streamId);
        synchronized (stream) {
            String id = streamId + "_" + (++stream.sequence);
            stream.events.addLast(new Event(id, message));
            stream.bytes += message.length;
            while (stream.events.size() > maxEventsPerStream
                    || (stream.bytes > maxBytesPerStream && stream.events.size() > 1)) {
                stream.bytes -= stream.events.removeFirst().message().length;
            }
            return id;
        }
    }

    @Override
    public String primingId(String sessionId, String streamId) {
        Stream stream = stream(sessionId, streamId);
        synchronized (stream) {
            return streamId + "_" + stream.sequence;
        }
    }

    @Override
    public Optional<Replay> replayAfter(String sessionId, String lastEventId) {
        int cut = lastEventId.lastIndexOf('_');
        if (cut <= 0) {
            return Optional.empty();
        }
        String streamId = lastEventId.substring(0, cut);
        long after;
        try {
            after = Long.parseLong(lastEventId.substring(cut + 1));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
        Map<String, Stream> streams = sessions.get(sessionId);
        Stream stream = streams == null ? null : streams.get(streamId);
        if (stream == null) {
            return Optional.empty();
        }
        synchronized (stream) {
            if (after > stream.sequence) {
                return Optional.empty();
            }
            List<Event> missed = new ArrayList<>();
            for (Event e : stream.events) {
                if (Long.parseLong(e.id().substring(cut + 1)) > after) {
                    missed.add(e);
                }
            }
            return Optional.of(new Replay(streamId, missed));
        }
    }

    @Override
    public void removeSession(String sessionId) {
        sessions.remove(sessionId);
    }

    /** Counted when asked, so that appending pays nothing for it. */
    @Override
    public long size() {
        long size = 0;
        for (Map<String, Stream> streams : sessions.values()) {
            List<Stream> copy;
            synchronized (streams) {
                copy = new ArrayList<>(streams.values());
            }
            for (Stream s : copy) {
                synchronized (s) {
                    size += s.events.size();
                }
            }
        }
        return size;
    }

    private Stream stream(String sessionId, String streamId) {
        Map<String, Stream> streams = sessions.computeIfAbsent(sessionId, k -> java.util.Collections.synchronizedMap(
                new LinkedHashMap<>(16, 0.75f, true) {
                    @Override
                    protected boolean removeEldestEntry(Map.Entry<String, Stream> eldest) {
                        return size() > maxStreamsPerSession;
                    }
                }));
        return streams.computeIfAbsent(streamId, k -> new Stream());
    }
}
