package dev.tern.server;

import java.io.OutputStream;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import dev.tern.protocol.CanonicalJson;
import dev.tern.protocol.Json;
import dev.tern.protocol.McpMeta;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.Ticker;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import org.jspecify.annotations.Nullable;

/**
 * The results of cacheable tools, resources and prompts ({@link CachePolicy}): a Caffeine cache bounded by the
 * serialized size of what it holds, keyed by the feature, the arguments in canonical JSON (keys sorted), the era and,
 * for private results, the principal. Error results, task results and retries that carry answers are never kept.
 * Thread-safe.
 */
final class ResultCache {
    enum Kind {
        TOOL, RESOURCE, PROMPT
    }

    /** What one result is kept under; {@code principal} is null for a public result. */
    record Key(Kind kind, String name, String arguments, boolean modern, @Nullable String principal) {
    }

    /** A kept result (never handed out as it is: see {@link #serving}) and when it stops being fresh. */
    private record Entry(ObjectNode result, long expiresAtNanos, int weight) {
    }

    /** Computes a result on a miss. */
    interface Compute {
        ObjectNode get() throws Exception;
    }

    private static final System.Logger LOG = System.getLogger("dev.tern.server");
    /** When a failure of the second level was last logged: an outage would otherwise log once per call. */
    private static final AtomicLong SECOND_LEVEL_LOGGED = new AtomicLong(System.nanoTime() - TimeUnit.MINUTES.toNanos(1));

    /** Roughly what a key and an entry cost beyond the result's bytes. */
    private static final int OVERHEAD = 96;

    private final Cache<Key, Entry> cache;
    private final Ticker ticker;
    /** Counts invalidations, so that a result computed across one is not kept. */
    private final AtomicLong generation = new AtomicLong();
    /** The misses being computed, each by its first caller, which later callers of the same key wait for. */
    private final ConcurrentHashMap<Key, CompletableFuture<@Nullable Entry>> flights = new ConcurrentHashMap<>();

    /** The level shared by the nodes behind this one, for public results; {@code null} when there is none. */
    private final @Nullable CacheSecondLevel second;

    ResultCache(long maxBytes, Ticker ticker, @Nullable CacheSecondLevel second) {
        this.ticker = ticker;
        this.second = second;
        this.cache = Caffeine.newBuilder()
                .maximumWeight(maxBytes)
                .weigher((Key k, Entry e) -> e.weight)
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
                .ticker(ticker)
                // Maintenance on the calling thread: eviction is done when a put returns, not on a pool later.
                .executor(Runnable::run)
                .build();
    }

    /**
     * The result of {@code e}'s call of a feature with {@code policy}: a fresh kept one, or the one {@code compute}
     * makes, kept when it may be. Records on {@code e} what its result is to say of caching in 2026-07-28.
     *
     * <p>Concurrent misses of one key run {@code compute} once: the first caller runs it, the others wait for its
     * result (a caller on a transport's thread, which must not block, runs its own instead). A result that is not
     * kept (an error, a task, a cancelled or timed-out run, an exception) is never handed to a waiter: each waiter
     * then runs {@code compute} itself, so an error reaches only the callers whose own run made it, and a waiter
     * waits for at most one run besides its own. A waiter cancelled or timed out while waiting gets a
     * {@link CancellationException}; the run it waited for goes on for the others.
     */
    ObjectNode serve(Exchange e, CachePolicy policy, Kind kind, String name, @Nullable JsonNode arguments,
            Compute compute) throws Exception {
        long ttl = policy.ttl().toNanos();
        e.cachePolicy = policy;
        e.cacheTtlNanos = ttl;
        Key key = key(e, policy, kind, name, arguments);
        if (key == null) {
            return compute.get();
        }
        Entry hit = fresh(e, key);
        if (hit != null) {
            return serving(hit.result);
        }
        CompletableFuture<@Nullable Entry> mine = new CompletableFuture<>();
        CompletableFuture<@Nullable Entry> running = flights.putIfAbsent(key, mine);
        if (running != null) {
            if (!e.inline) {
                Entry shared = await(e, running);
                if (shared != null) {
                    e.cacheTtlNanos = Math.max(0, shared.expiresAtNanos - ticker.read());
                    return serving(shared.result);
                }
            }
            return run(e, key, ttl, compute, null);
        }
        try {
            // A flight that ended between the look-up above and this one kept its result.
            hit = fresh(e, key);
            if (hit != null) {
                mine.complete(hit);
                return serving(hit.result);
            }
            return run(e, key, ttl, compute, mine);
        } finally {
            mine.complete(null);
            flights.remove(key, mine);
        }
    }

    /**
     * Whether results kept under {@code policy} go to the second level: then even a handler that promised never to
     * block is run on a thread of its own, as a miss may wait for the network.
     */
    boolean shares(@Nullable CachePolicy policy) {
        return second != null && policy != null && policy.scope() == CacheScope.PUBLIC;
    }

    /** The fresh entry kept for {@code key}, its time left recorded on {@code e}; or {@code null}. */
    private @Nullable Entry fresh(Exchange e, Key key) {
        Entry hit = cache.getIfPresent(key);
        long now = ticker.read();
        if (hit != null && hit.expiresAtNanos > now) {
            e.cacheTtlNanos = hit.expiresAtNanos - now;
            return hit;
        }
        return null;
    }

    /**
     * Serves a miss from the second level, or runs {@code compute} and keeps its result (in both levels) when it may;
     * a flight led is completed with what its waiters get.
     */
    private ObjectNode run(Exchange e, Key key, long ttl, Compute compute,
            @Nullable CompletableFuture<@Nullable Entry> flight) throws Exception {
        long before = generation.get();
        // A call on a transport's thread must not wait for the network.
        boolean shared = second != null && key.principal() == null && !e.inline;
        CacheSecondLevel.Found found = shared ? lookUp(key) : null;
        if (found != null && found.json() != null) {
            ObjectNode result = parse(found.json());
            if (result != null) {
                long left = TimeUnit.MILLISECONDS.toNanos(found.ttlMillis());
                Entry entry = new Entry(result, ticker.read() + left, weigh(key, found.json().length));
                keep(key, entry, before, flight);
                e.cacheTtlNanos = left;
                return serving(result);
            }
        }
        ObjectNode result = compute.get();
        if (result == null || !keeps(key.kind(), result)) {
            return result;
        }
        byte[] json = shared ? Json.mapper().writeValueAsBytes(result) : null;
        Entry entry = new Entry(result, ticker.read() + ttl, json != null ? weigh(key, json.length) : weigh(key, result));
        keep(key, entry, before, flight);
        if (json != null) {
            store(key, json, ttl, found);
        }
        return serving(result);
    }

    private void keep(Key key, Entry entry, long before, @Nullable CompletableFuture<@Nullable Entry> flight) {
        // A result computed across an invalidation is not kept, nor may it displace one computed after it.
        if (generation.get() == before) {
            cache.put(key, entry);
            if (generation.get() != before) {
                cache.asMap().remove(key, entry);
            }
        }
        if (flight != null) {
            flight.complete(entry);
        }
    }

    private CacheSecondLevel.Found lookUp(Key key) {
        try {
            return second.get(wire(key.kind()), key.name(), sharedArguments(key));
        } catch (RuntimeException e) {
            secondLevelFailed("a look-up", e);
            return CacheSecondLevel.Found.MISS;
        }
    }

    private void store(Key key, byte[] json, long ttlNanos, CacheSecondLevel.Found lookedUp) {
        try {
            second.put(wire(key.kind()), key.name(), sharedArguments(key), json,
                    Math.max(1, TimeUnit.NANOSECONDS.toMillis(ttlNanos)), lookedUp);
        } catch (RuntimeException e) {
            secondLevelFailed("keeping a result", e);
        }
    }

    private void dropShared(Kind kind, @Nullable String name) {
        if (second == null) {
            return;
        }
        try {
            second.invalidate(wire(kind), name);
        } catch (RuntimeException e) {
            // What it holds stays served until its time to live runs out: worth a warning every time.
            LOG.log(System.Logger.Level.WARNING, "The second-level result cache failed to drop the results of " + wire(kind)
                            + (name == null ? "s" : " " + name) + ": " + e);
        }
    }

    private static void secondLevelFailed(String what, RuntimeException e) {
        long last = SECOND_LEVEL_LOGGED.get();
        long now = System.nanoTime();
        if (now - last >= TimeUnit.SECONDS.toNanos(10) && SECOND_LEVEL_LOGGED.compareAndSet(last, now)) {
            LOG.log(System.Logger.Level.WARNING, "The second-level result cache failed " + what
                    + " (served as a miss; logged at most every 10 s): " + e);
        }
    }

    private static String wire(Kind kind) {
        return switch (kind) {
            case TOOL -> CacheSecondLevel.TOOL;
            case RESOURCE -> CacheSecondLevel.RESOURCE;
            case PROMPT -> CacheSecondLevel.PROMPT;
        };
    }

    /** The arguments as the second level keys them: the era's result shapes differ, so it is part of them. */
    private static String sharedArguments(Key key) {
        return (key.modern() ? "2026:" : "2025:") + key.arguments();
    }

    private static @Nullable ObjectNode parse(byte[] json) {
        try {
            return Json.mapper().readTree(json) instanceof ObjectNode o ? o : null;
        } catch (RuntimeException malformed) {
            return null;
        }
    }

    /** The entry the flight a caller joined ends with, or {@code null} when it has none to share. */
    private static @Nullable Entry await(Exchange e, CompletableFuture<@Nullable Entry> flight) {
        try {
            return flight.get();
        } catch (InterruptedException interrupted) {
            throw new CancellationException(e.cancellation().reason());
        } catch (ExecutionException unexpected) {
            return null;
        }
    }

    /** Puts the 2026-07-28 {@code ttlMs} and {@code cacheScope} of a cacheable feature's result (none on an error). */
    static void hint(Exchange e, ObjectNode result) {
        if (result.path("isError").asBoolean(false) || result.has("task")) {
            return;
        }
        // Rounded down: a result served from the cache never claims more time than it has, and says less than the
        // whole ttl, which a fresh result says exactly.
        result.put("ttlMs", Math.max(0, e.cacheTtlNanos / 1_000_000));
        result.put("cacheScope", e.cachePolicy.scope().wire());
    }

    /** The key of a call, or {@code null} when its result must not be kept. */
    private static @Nullable Key key(Exchange e, CachePolicy policy, Kind kind, String name,
            @Nullable JsonNode arguments) {
        if (e.params.has("inputResponses") || e.params.has("requestState")) {
            return null;
        }
        String principal = null;
        if (policy.scope() == CacheScope.PRIVATE) {
            principal = e.principal();
            if (principal == null) {
                return null;
            }
        }
        return new Key(kind, name, CanonicalJson.of(arguments), e.modern(), principal);
    }

    private static boolean keeps(Kind kind, ObjectNode result) {
        if (result.has("resultType") || result.has("task")) {
            return false;
        }
        return kind != Kind.TOOL || !result.path("isError").asBoolean(false);
    }

    /**
     * A copy the caller may change at its top level and in its {@code _meta} (as results are decorated before they
     * go out); everything below is shared, as nothing writes into it.
     */
    private static ObjectNode serving(ObjectNode kept) {
        ObjectNode copy = Json.object();
        for (Map.Entry<String, JsonNode> member : kept.properties()) {
            JsonNode value = member.getValue();
            copy.set(member.getKey(), member.getKey().equals(McpMeta.KEY) ? value.deepCopy() : value);
        }
        return copy;
    }

    private static int weigh(Key key, ObjectNode result) {
        CountingStream counter = new CountingStream();
        Json.mapper().writeValue(counter, result);
        return weigh(key, counter.count);
    }

    private static int weigh(Key key, long resultBytes) {
        long weight = resultBytes + OVERHEAD + 2L * (key.name().length() + key.arguments().length()
                + (key.principal() == null ? 0 : key.principal().length()));
        return (int) Math.min(Integer.MAX_VALUE, weight);
    }

    /** Drops every result of {@code kind}. */
    void invalidate(Kind kind) {
        generation.incrementAndGet();
        flights.keySet().removeIf(k -> k.kind() == kind);
        cache.asMap().keySet().removeIf(k -> k.kind() == kind);
        dropShared(kind, null);
    }

    /** Drops every result of the feature {@code name} (a tool or prompt name, a resource URI). */
    void invalidate(Kind kind, String name) {
        generation.incrementAndGet();
        flights.keySet().removeIf(k -> k.kind() == kind && k.name().equals(name));
        cache.asMap().keySet().removeIf(k -> k.kind() == kind && k.name().equals(name));
        dropShared(kind, name);
    }

    void invalidateAll() {
        generation.incrementAndGet();
        flights.clear();
        cache.invalidateAll();
        for (Kind kind : Kind.values()) {
            dropShared(kind, null);
        }
    }

    /** How many callers are waiting for another caller's run of the same call. */
    int waiting() {
        return flights.values().stream().mapToInt(CompletableFuture::getNumberOfDependents).sum();
    }

    /** The bytes held, as weighed. */
    long weight() {
        return cache.policy().eviction().map(ev -> ev.weightedSize().orElse(0)).orElse(0L);
    }

    long size() {
        cache.cleanUp();
        return cache.estimatedSize();
    }

    private static final class CountingStream extends OutputStream {
        long count;

        @Override
        public void write(int b) {
            count++;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            count += len;
        }
    }
}
