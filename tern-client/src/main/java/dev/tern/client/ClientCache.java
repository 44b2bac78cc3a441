package dev.tern.client;

import java.util.Set;

import dev.tern.protocol.CanonicalJson;
import dev.tern.protocol.McpMeta;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.Ticker;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import org.jspecify.annotations.Nullable;

/**
 * Results a server marked cacheable (2026-07-28 {@code ttlMs} above zero with {@code cacheScope}), kept until their
 * time to live ends. One instance given to several clients ({@link McpClient.Builder#cache(ClientCache)}) holds their
 * {@code public} results for all of them; each client keeps its {@code private} results in one of its own, since a
 * client speaks for one principal. Bounded by entry count; thread-safe.
 */
public final class ClientCache {
    /** The methods whose results may be kept. */
    private static final Set<String> CACHEABLE = Set.of("tools/call", "resources/read", "prompts/get", "tools/list",
            "resources/list", "resources/templates/list", "prompts/list", "server/discover");

    record Key(String server, String method, String params) {
    }

    private record Entry(JsonNode result, long expiresAtNanos) {
    }

    private final Cache<Key, Entry> cache;
    private final Ticker ticker;

    private ClientCache(long maxEntries, Ticker ticker) {
        this.ticker = ticker;
        this.cache = Caffeine.newBuilder().maximumSize(maxEntries).ticker(ticker)
                .expireAfter(new Expiry<Key, Entry>() {
                    @Override
                    public long expireAfterCreate(Key key, Entry entry, long now) {
                        return Math.max(0, entry.expiresAtNanos - now);
                    }

                    @Override
                    public long expireAfterUpdate(Key key, Entry entry, long now, long current) {
                        return Math.max(0, entry.expiresAtNanos - now);
                    }

                    @Override
                    public long expireAfterRead(Key key, Entry entry, long now, long current) {
                        return current;
                    }
                })
                .executor(Runnable::run)
                .build();
    }

    /** A cache of at most {@code maxEntries} results. */
    public static ClientCache create(long maxEntries) {
        if (maxEntries <= 0) {
            throw new IllegalArgumentException("maxEntries: " + maxEntries + " (expected: > 0)");
        }
        return new ClientCache(maxEntries, Ticker.systemTicker());
    }

    static ClientCache create(long maxEntries, Ticker ticker) {
        return new ClientCache(maxEntries, ticker);
    }

    /** The key of a request to {@code server}, or {@code null} for a method whose results are never kept. */
    static @Nullable Key key(String server, String method, @Nullable JsonNode params) {
        if (!CACHEABLE.contains(method)) {
            return null;
        }
        JsonNode keyed = params;
        if (params instanceof ObjectNode o && (o.has(McpMeta.KEY) || o.has("inputResponses") || o.has("requestState"))) {
            if (o.has("inputResponses") || o.has("requestState")) {
                return null;
            }
            ObjectNode copy = o.deepCopy();
            copy.remove(McpMeta.KEY);
            keyed = copy;
        }
        return new Key(server, method, CanonicalJson.of(keyed));
    }

    /** A fresh copy of the result kept under {@code key}, or {@code null}. */
    @Nullable JsonNode get(Key key) {
        Entry e = cache.getIfPresent(key);
        return e == null || e.expiresAtNanos <= ticker.read() ? null : e.result.deepCopy();
    }

    /** Keeps {@code result} if it says it may be kept for some time, in the scope this cache serves. */
    static boolean cacheable(JsonNode result, String scope) {
        return result != null && result.path("ttlMs").asLong(0) > 0 && scope.equals(result.path("cacheScope").asString(""))
                && "complete".equals(result.path("resultType").asString("complete"))
                && !result.path("isError").asBoolean(false);
    }

    void put(Key key, JsonNode result) {
        cache.put(key, new Entry(result.deepCopy(), ticker.read() + result.path("ttlMs").asLong() * 1_000_000L));
    }

    /** Drops the results of {@code server} for {@code method}, or for every method when it is null. */
    void invalidate(String server, @Nullable String method) {
        cache.asMap().keySet().removeIf(k -> k.server().equals(server) && (method == null || k.method().equals(method)));
    }

    /** Drops the kept reads of {@code uri} from {@code server}. */
    void invalidateRead(String server, String uri) {
        String params = CanonicalJson.of(dev.tern.protocol.Json.object().put("uri", uri));
        cache.invalidate(new Key(server, "resources/read", params));
    }

    /** Drops everything. */
    public void invalidateAll() {
        cache.invalidateAll();
    }

    long size() {
        cache.cleanUp();
        return cache.estimatedSize();
    }
}
