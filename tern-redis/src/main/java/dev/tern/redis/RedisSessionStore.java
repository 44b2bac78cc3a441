package dev.tern.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionStage;

import dev.tern.protocol.Json;
import dev.tern.protocol.ProtocolVersion;
import dev.tern.protocol.model.Implementation;
import dev.tern.protocol.model.LoggingLevel;
import dev.tern.server.LegacySessionState;
import dev.tern.server.SessionStore;

import io.lettuce.core.ScriptOutputType;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Legacy sessions in Redis, one hash per session ({@code tern:{id}:s}: its principal, its state as JSON and a
 * revision counted up by every save), expiring when no node touched it for the idle timeout. A node serving a session
 * touches it once per request (one round trip, a script, awaited without holding a thread) and reloads it only when
 * another node changed it.
 * Thread-safe.
 */
public final class RedisSessionStore implements SessionStore {
    private static final byte[] ANONYMOUS = new byte[0];

    private static final Script SAVE = new Script("""
            redis.call('HSET', KEYS[1], 'p', ARGV[1], 's', ARGV[2])
            local revision = redis.call('HINCRBY', KEYS[1], 'r', 1)
            redis.call('PEXPIRE', KEYS[1], ARGV[3])
            return revision
            """, ScriptOutputType.INTEGER);

    private static final Script LOAD = new Script("""
            if redis.call('PEXPIRE', KEYS[1], ARGV[1]) == 0 then return {} end
            return redis.call('HMGET', KEYS[1], 'p', 's', 'r')
            """, ScriptOutputType.MULTI);

    private static final Script TOUCH = new Script("""
            if redis.call('PEXPIRE', KEYS[1], ARGV[1]) == 0 then return -1 end
            return tonumber(redis.call('HGET', KEYS[1], 'r'))
            """, ScriptOutputType.INTEGER);

    private final Redis redis;

    public RedisSessionStore(Redis redis) {
        this.redis = redis;
    }

    @Override
    public boolean shared() {
        return true;
    }

    @Override
    public long save(String sessionId, String principal, LegacySessionState state, Duration ttl) {
        String key = Keys.session(sessionId);
        Long revision = redis.call(key, c -> SAVE.run(c, new String[] {key},
                principal == null ? ANONYMOUS : utf8("=" + principal), encode(state), millis(ttl)));
        return revision;
    }

    @Override
    public Optional<Stored> load(String sessionId, Duration ttl) {
        String key = Keys.session(sessionId);
        List<Object> fields = redis.call(key, c -> LOAD.run(c, new String[] {key}, millis(ttl)));
        if (fields.size() < 3 || fields.get(1) == null) {
            return Optional.empty();
        }
        byte[] p = (byte[]) fields.get(0);
        String principal = p == null || p.length == 0 ? null : new String(p, 1, p.length - 1, StandardCharsets.UTF_8);
        long revision = Long.parseLong(new String((byte[]) fields.get(2), StandardCharsets.US_ASCII));
        return Optional.of(new Stored(principal, decode((byte[]) fields.get(1)), revision));
    }

    @Override
    public long touch(String sessionId, Duration ttl) {
        String key = Keys.session(sessionId);
        Long revision = redis.call(key, c -> TOUCH.run(c, new String[] {key}, millis(ttl)));
        return revision;
    }

    @Override
    public CompletionStage<Long> touchAsync(String sessionId, Duration ttl) {
        String key = Keys.session(sessionId);
        return redis.callAsync(key, c -> TOUCH.runAsync(c, new String[] {key}, millis(ttl)));
    }

    @Override
    public void remove(String sessionId) {
        String key = Keys.session(sessionId);
        redis.call(key, c -> c.del(key));
    }

    static byte[] encode(LegacySessionState state) {
        ObjectNode o = Json.object();
        o.put("version", state.version().id());
        o.set("capabilities", state.capabilities());
        if (state.clientInfo() != null) {
            o.set("clientInfo", Json.mapper().valueToTree(state.clientInfo()));
        }
        o.put("logLevel", state.logLevel().wire());
        ArrayNode subscriptions = o.putArray("subscriptions");
        state.subscriptions().forEach(subscriptions::add);
        return Json.mapper().writeValueAsBytes(o);
    }

    static LegacySessionState decode(byte[] json) {
        JsonNode o = Json.mapper().readTree(json);
        ProtocolVersion version = ProtocolVersion.parse(o.path("version").asString())
                .orElseThrow(() -> new IllegalStateException("a stored session names an unknown revision"));
        JsonNode info = o.get("clientInfo");
        Implementation clientInfo = info == null ? null : Json.mapper().treeToValue(info, Implementation.class);
        LoggingLevel level = LoggingLevel.parse(o.path("logLevel").asString())
                .orElseThrow(() -> new IllegalStateException("a stored session names an unknown log level"));
        Set<String> subscriptions = new HashSet<>();
        o.path("subscriptions").forEach(n -> subscriptions.add(n.asString()));
        return new LegacySessionState(version, (ObjectNode) o.get("capabilities"), clientInfo, level, subscriptions);
    }

    private static byte[] millis(Duration d) {
        return Long.toString(Math.max(1, d.toMillis())).getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
