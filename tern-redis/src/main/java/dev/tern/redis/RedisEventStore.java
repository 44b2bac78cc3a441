package dev.tern.redis;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

import dev.tern.server.EventStore;

import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.StreamMessage;

/**
 * The SSE events of legacy sessions in Redis Streams, one stream per SSE stream, so that a client resumes with
 * {@code Last-Event-ID} on any node. Each stream keeps about its last {@code maxEventsPerStream} events
 * ({@code XADD MAXLEN ~}) and none older than {@code maxAge} ({@code XTRIM MINID ~}, and the key expires when idle
 * that long). An event id is {@code <streamId>_<entry id>}: Redis makes entry ids unique within a stream, and
 * stream ids carry a random tag of their node, so ids are unique across nodes. Thread-safe.
 */
public final class RedisEventStore implements EventStore {
    private static final Pattern ENTRY_ID = Pattern.compile("\\d{1,20}-\\d{1,20}");
    /** A stream id of {@link #streamId}, which a transport may prefix with a letter of its own. */
    private static final Pattern STREAM_ID = Pattern.compile("[a-z]?[0-9a-z]{1,16}\\.[0-9a-z]{1,16}");
    private static final String NOTHING_SENT = "0-0";

    private static final Script APPEND = new Script("""
            local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], '*', 'm', ARGV[1])
            local ms = tonumber(string.match(id, '^(%d+)'))
            redis.call('XTRIM', KEYS[1], 'MINID', '~', tostring(ms - tonumber(ARGV[3])))
            redis.call('PEXPIRE', KEYS[1], ARGV[3])
            redis.call('SADD', KEYS[2], KEYS[1])
            redis.call('PEXPIRE', KEYS[2], ARGV[3])
            return id
            """, ScriptOutputType.VALUE);

    private static final Script REPLAY = new Script("""
            return {redis.call('EXISTS', KEYS[1]), redis.call('XRANGE', KEYS[1], '(' .. ARGV[1], '+')}
            """, ScriptOutputType.MULTI);

    private final Redis redis;
    private final byte[] maxEvents;
    private final byte[] maxAgeMillis;
    /** This node's tag in the ids of the streams its sessions open. */
    private final String node;

    public RedisEventStore(Redis redis) {
        this(redis, 256, Duration.ofMinutes(30));
    }

    public RedisEventStore(Redis redis, int maxEventsPerStream, Duration maxAge) {
        if (maxEventsPerStream <= 0 || maxAge.toMillis() <= 0) {
            throw new IllegalArgumentException("limits must be > 0");
        }
        this.redis = redis;
        this.maxEvents = ascii(Integer.toString(maxEventsPerStream));
        this.maxAgeMillis = ascii(Long.toString(maxAge.toMillis()));
        this.node = Long.toString(new SecureRandom().nextLong() >>> 1, 36);
    }

    @Override
    public String streamId(long sequence) {
        return node + "." + Long.toString(sequence, 36);
    }

    @Override
    public String append(String sessionId, String streamId, byte[] message) {
        String key = Keys.events(sessionId, streamId);
        byte[] id = redis.call(key, c -> APPEND.run(c, new String[] {key, Keys.eventStreams(sessionId)},
                message, maxEvents, maxAgeMillis));
        return streamId + "_" + new String(id, StandardCharsets.US_ASCII);
    }

    @Override
    public String primingId(String sessionId, String streamId) {
        String key = Keys.events(sessionId, streamId);
        List<StreamMessage<String, byte[]>> last = redis.call(key, c ->
                c.xrevrange(key, Range.create("-", "+"), Limit.from(1)));
        return streamId + "_" + (last.isEmpty() ? NOTHING_SENT : last.get(0).getId());
    }

    @Override
    public Optional<Replay> replayAfter(String sessionId, String lastEventId) {
        int cut = lastEventId.lastIndexOf('_');
        if (cut <= 0) {
            return Optional.empty();
        }
        String streamId = lastEventId.substring(0, cut);
        String after = lastEventId.substring(cut + 1);
        if (!STREAM_ID.matcher(streamId).matches() || !ENTRY_ID.matcher(after).matches()) {
            return Optional.empty();
        }
        String key = Keys.events(sessionId, streamId);
        List<Object> existsAndEntries = redis.call(key, c -> REPLAY.run(c, new String[] {key}, ascii(after)));
        if (((Long) existsAndEntries.get(0)) == 0) {
            return Optional.empty();
        }
        List<?> entries = (List<?>) existsAndEntries.get(1);
        List<Event> events = new ArrayList<>(entries.size());
        for (Object entry : entries) {
            List<?> idAndFields = (List<?>) entry;
            String entryId = new String((byte[]) idAndFields.get(0), StandardCharsets.US_ASCII);
            List<?> fields = (List<?>) idAndFields.get(1);
            events.add(new Event(streamId + "_" + entryId, (byte[]) fields.get(1)));
        }
        return Optional.of(new Replay(streamId, events));
    }

    @Override
    public void removeSession(String sessionId) {
        String set = Keys.eventStreams(sessionId);
        redis.call(set, c -> {
            List<String> keys = new ArrayList<>();
            keys.add(set);
            for (byte[] key : c.smembers(set)) {
                keys.add(new String(key, StandardCharsets.UTF_8));
            }
            return c.del(keys.toArray(String[]::new));
        });
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
