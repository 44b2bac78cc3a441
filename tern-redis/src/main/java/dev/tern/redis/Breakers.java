package dev.tern.redis;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;

import org.jspecify.annotations.Nullable;

/**
 * Which circuit breaker judges a command. On a single server one breaker judges them all. On a Redis Cluster each
 * master has its own, judging the commands whose key lies in one of its slots as the cluster's layout says now, so
 * that a dead master's failures do not refuse the commands of the healthy ones; a master promoted in a failover starts
 * with a closed breaker. Commands without a key have a breaker of their own there, as do the slots no master serves.
 * Thread-safe.
 */
final class Breakers {
    /** The breakers' name for the slots no master serves, such as those of a master the cluster marked failed. */
    private static final String UNSERVED = "";

    private final Supplier<Breaker> newBreaker;
    /** The cluster's layout as the node knows it now; null for a single server. */
    private final @Nullable Supplier<Partitions> layout;
    /** The breaker of commands without a key; on a single server, of every command. */
    private final Breaker withoutKey;
    private final Map<String, Breaker> byMaster = new ConcurrentHashMap<>();

    private Breakers(Supplier<Breaker> newBreaker, @Nullable Supplier<Partitions> layout) {
        this.newBreaker = newBreaker;
        this.layout = layout;
        this.withoutKey = newBreaker.get();
    }

    /** One breaker for every command, of a single server. */
    static Breakers single(Supplier<Breaker> newBreaker) {
        return new Breakers(newBreaker, null);
    }

    /** A breaker per master of the cluster whose current layout {@code layout} gives. */
    static Breakers perMaster(Supplier<Partitions> layout, Supplier<Breaker> newBreaker) {
        return new Breakers(newBreaker, layout);
    }

    /** The breaker of the master that holds {@code key}'s slot now. */
    Breaker forKey(String key) {
        if (layout == null) {
            return withoutKey;
        }
        Partitions partitions = layout.get();
        RedisClusterNode master = partitions.getMasterBySlot(SlotHash.getSlot(key));
        String id = master == null ? UNSERVED : master.getNodeId();
        Breaker breaker = byMaster.get(id);
        return breaker != null ? breaker : added(id, partitions);
    }

    /** The breaker of commands that name no key. */
    Breaker withoutKey() {
        return withoutKey;
    }

    private Breaker added(String id, Partitions partitions) {
        // A master appears only after the layout changed, so this is when the breakers of masters that left it go.
        byMaster.keySet().removeIf(known -> !known.equals(UNSERVED) && partitions.getPartitionByNodeId(known) == null);
        return byMaster.computeIfAbsent(id, unknown -> newBreaker.get());
    }
}
