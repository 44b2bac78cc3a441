package dev.tern.server;

import org.jspecify.annotations.Nullable;

/**
 * A second level behind the server's result cache, shared by the nodes that serve the same features (Redis: see
 * tern-redis): a {@link CacheScope#PUBLIC} result one node computed is served by the others from here, and each keeps
 * it in its own first level for the time it has left. Private results never reach it. With a second level, a public
 * cacheable feature whose handler promised never to block is still called on a thread of its own rather than on the
 * transport's, since a miss may wait for the network.
 *
 * <p>Implementations must be thread-safe, and must fail soft: a level that cannot answer returns a miss from
 * {@link #get} and drops a {@link #put}, so an outage costs the handler runs it saved, never a call.
 *
 * <p>Invalidation: {@link #invalidate} is called when this node drops results ({@link McpServer#invalidateTool} and
 * the like, a list change, a resource update) and must be visible to every node's next {@link #get}. The other
 * nodes' first levels are not this interface's concern: a transport that carries one node's invalidations to the
 * others calls the same {@code McpServer.invalidate*} methods there (which invalidate here again, harmlessly).
 */
public interface CacheSecondLevel {
    /** The kinds of feature whose results are kept, as {@link #get} and the others name them. */
    String TOOL = "tool";
    String RESOURCE = "resource";
    String PROMPT = "prompt";

    /**
     * What a look-up found. {@code json} is the result's JSON, or {@code null} on a miss; {@code ttlMillis} the time
     * it has left. {@code version} stands for the level's state at the look-up (its invalidations so far): it is
     * handed back to {@link #put}, which keeps nothing if an invalidation came in between.
     */
    record Found(byte @Nullable [] json, long ttlMillis, @Nullable Object version) {
        /** A miss that lets any later put through. */
        public static final Found MISS = new Found(null, 0, null);
    }

    /**
     * The kept result of the feature {@code name} of {@code kind} for {@code arguments} (a canonical text standing
     * for the arguments and the protocol era), or a miss.
     */
    Found get(String kind, String name, String arguments);

    /** Keeps a result for {@code ttlMillis}, unless the feature was invalidated since {@code lookedUp}. */
    void put(String kind, String name, String arguments, byte[] json, long ttlMillis, Found lookedUp);

    /** Drops every kept result of the feature {@code name} of {@code kind}, or of every feature of it when null. */
    void invalidate(String kind, @Nullable String name);
}
