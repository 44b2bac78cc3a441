package dev.tern.redis;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;

import dev.tern.server.CacheSecondLevel;

import io.lettuce.core.ScriptOutputType;

import org.jspecify.annotations.Nullable;

/**
 * The second level of the result cache in Redis ({@link dev.tern.server.McpServer.Builder#cacheSecondLevel}): public
 * results one node computed, served to the others until their time to live runs out.
 *
 * <p>Invalidation without scanning: every kind of feature and every feature has a generation counter, and a result
 * is kept under a key that names both generations; dropping a feature's results (or a kind's) is one {@code INCR},
 * after which no look-up finds the old keys, which expire on their own. A look-up and a put are one script each (one
 * round trip); a put checks that the generations it is given are still current, so a result computed across an
 * invalidation is not kept. Every key of a kind shares a hash tag, hence a Redis Cluster slot.
 *
 * <p>Another node's first level is dropped by that node: whatever carries invalidations between nodes calls its
 * {@code McpServer.invalidate*} methods, which end here too. Thread-safe.
 */
public final class RedisResultCache implements CacheSecondLevel {
    private static final String PREFIX = "tern:{rc:";

    /** KEYS: the kind's and the feature's generations; ARGV: the values' key prefix, the digest. */
    private static final Script GET = new Script("""
            local version = (redis.call('GET', KEYS[1]) or '0') .. '.' .. (redis.call('GET', KEYS[2]) or '0')
            local key = ARGV[1] .. version .. ':' .. ARGV[2]
            local value = redis.call('GET', key)
            if not value then return {version} end
            return {version, value, redis.call('PTTL', key)}
            """, ScriptOutputType.MULTI);

    /** As {@link #GET}, then ARGV: the version looked up ('' for any), the value, its time to live in ms. */
    private static final Script PUT = new Script("""
            local version = (redis.call('GET', KEYS[1]) or '0') .. '.' .. (redis.call('GET', KEYS[2]) or '0')
            if ARGV[3] ~= '' and ARGV[3] ~= version then return 0 end
            redis.call('SET', ARGV[1] .. version .. ':' .. ARGV[2], ARGV[4], 'PX', ARGV[5])
            return 1
            """, ScriptOutputType.INTEGER);

    private final Redis redis;

    public RedisResultCache(Redis redis) {
        this.redis = Objects.requireNonNull(redis, "redis");
    }

    @Override
    public Found get(String kind, String name, String arguments) {
        String[] generations = generations(kind, name);
        List<Object> found = redis.call(generations[0], r -> GET.run(r, generations, bytes(values(kind)),
                bytes(digest(name, arguments))));
        String version = text(found.get(0));
        if (found.size() < 3) {
            return new Found(null, 0, version);
        }
        long ttl = (Long) found.get(2);
        return ttl <= 0 ? new Found(null, 0, version) : new Found((byte[]) found.get(1), ttl, version);
    }

    @Override
    public void put(String kind, String name, String arguments, byte[] json, long ttlMillis, Found lookedUp) {
        String version = lookedUp.version() instanceof String v ? v : "";
        String[] generations = generations(kind, name);
        redis.call(generations[0], r -> PUT.run(r, generations, bytes(values(kind)), bytes(digest(name, arguments)),
                bytes(version), json, bytes(Long.toString(Math.max(1, ttlMillis)))));
    }

    @Override
    public void invalidate(String kind, @Nullable String name) {
        String key = name == null ? generations(kind, "")[0] : generations(kind, name)[1];
        redis.call(key, r -> r.incr(key));
    }

    /** The keys of the kind's generation and of the feature's. */
    private static String[] generations(String kind, String name) {
        return new String[] {PREFIX + kind + "}:g", PREFIX + kind + "}:g:" + name};
    }

    /** What the keys of a kind's values begin with; the generations and the digest follow. */
    private static String values(String kind) {
        return PREFIX + kind + "}:v:";
    }

    /** The feature's name and the arguments, hashed: both may be long and hold any character. */
    private static String digest(String name, String arguments) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(name.getBytes(StandardCharsets.UTF_8));
            sha.update((byte) 0);
            return HexFormat.of().formatHex(sha.digest(arguments.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing", e);
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(Object value) {
        return value instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(value);
    }
}
