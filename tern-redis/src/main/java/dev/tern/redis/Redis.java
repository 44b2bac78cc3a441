package dev.tern.redis;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import dev.tern.server.StoreUnavailableException;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.RedisClusterURIUtil;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;

/**
 * One node's connection to Redis, shared by the stores built on it: keys are text, values bytes. Every command waits
 * at most the command timeout, and while the connection is down commands fail at once instead of queueing, so a
 * Redis outage costs callers an error, not a thread. Lettuce reconnects by itself. A Redis Cluster is reached the
 * same way, through {@code redis-cluster://} seeds: every key Tern uses carries a hash tag, so that what one command
 * or script touches lies in one slot. A call names the key it touches, so that a dead master's failures open only
 * that master's circuit breaker ({@link Breakers}). Thread-safe.
 */
public final class Redis implements AutoCloseable {
    /** How long one command may take before its caller is told Redis is unavailable. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);

    private static final System.Logger LOG = System.getLogger("dev.tern.redis");
    private static final String REFUSED = "Redis is unavailable (recent calls failed)";
    private static final String LETTUCE_IO_URING = "io.lettuce.core.iouring";

    /** The schemes of a Redis Cluster's seed nodes, plain and TLS. */
    private static final String CLUSTER = "redis-cluster", CLUSTER_TLS = "rediss-cluster";

    private final AbstractRedisClient client;
    private final ClientResources resources;
    private final StatefulConnection<String, byte[]> connection;
    private final RedisClusterCommands<String, byte[]> sync;
    private final RedisClusterAsyncCommands<String, byte[]> async;
    private static final RedisCodec<String, byte[]> CODEC = RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE);

    /** The shortest time between two refreshes of a cluster's layout caused by redirections or lost connections. */
    static final Duration ADAPTIVE_REFRESH_GAP = Duration.ofMillis(500);
    /** How often a node learns a cluster's layout again with nothing having told it to. */
    static final Duration PERIODIC_REFRESH = Duration.ofSeconds(30);

    /** How many failures in a row open a breaker, and for how long it then refuses calls before one may try. */
    private static final int BREAKER_FAILURES = 3;
    private static final Duration BREAKER_OPEN = Duration.ofSeconds(1);

    private final Breakers breakers;

    private Redis(AbstractRedisClient client, ClientResources resources, StatefulConnection<String, byte[]> connection,
            RedisClusterCommands<String, byte[]> sync, RedisClusterAsyncCommands<String, byte[]> async,
            Breakers breakers) {
        this.client = client;
        this.resources = resources;
        this.connection = connection;
        this.sync = sync;
        this.async = async;
        this.breakers = breakers;
    }

    private static Breaker newBreaker() {
        return new Breaker(BREAKER_FAILURES, BREAKER_OPEN);
    }

    /**
     * Connects to {@code uri}: one server, {@code redis://host:port[/db]} ({@code rediss://} for TLS), or a Redis
     * Cluster, {@code redis-cluster://host:port[,host:port...]} ({@code rediss-cluster://} for TLS), whose other
     * nodes are found from any of the seeds given.
     */
    public static Redis connect(String uri) {
        return connect(uri, DEFAULT_TIMEOUT);
    }

    public static Redis connect(String uri, Duration timeout) {
        Objects.requireNonNull(uri, "uri");
        if (System.getProperty(LETTUCE_IO_URING) == null) {
            // Lettuce warns at start whenever both epoll and io_uring are there; it picks epoll, as this says.
            System.setProperty(LETTUCE_IO_URING, "false");
        }
        // Reconnect attempts at most a second apart, so that a node is back within a second of Redis.
        ClientResources resources = ClientResources.builder()
                .reconnectDelay(Delay.exponential(Duration.ofMillis(10), Duration.ofSeconds(1), 2, TimeUnit.MILLISECONDS))
                .build();
        AbstractRedisClient client = null;
        try {
            List<RedisURI> cluster = clusterSeeds(uri);
            if (cluster != null) {
                cluster.forEach(seed -> seed.setTimeout(timeout));
                RedisClusterClient c = RedisClusterClient.create(resources, cluster);
                client = c;
                c.setOptions(failFast(ClusterClientOptions.builder(), timeout)
                        .topologyRefreshOptions(topologyRefresh())
                        // a master that failed over stays listed as failed: connecting to it again is pointless
                        .nodeFilter(node -> !(node.is(RedisClusterNode.NodeFlag.FAIL)
                                || node.is(RedisClusterNode.NodeFlag.NOADDR)
                                || node.is(RedisClusterNode.NodeFlag.HANDSHAKE)))
                        .build());
                var connection = c.connect(CODEC);
                // Lettuce opens its connection to a master on first use and rejects the commands sent meanwhile
                for (RedisClusterNode node : connection.getPartitions()) {
                    if (node.getRole().isUpstream()) {
                        connection.getConnection(node.getUri().getHost(), node.getUri().getPort());
                    }
                }
                return new Redis(c, resources, connection, connection.sync(), connection.async(),
                        Breakers.perMaster(connection::getPartitions, Redis::newBreaker));
            }
            RedisURI parsed = RedisURI.create(uri);
            parsed.setTimeout(timeout);
            RedisClient c = RedisClient.create(resources, parsed);
            client = c;
            c.setOptions(failFast(ClientOptions.builder(), timeout).build());
            var connection = c.connect(CODEC);
            return new Redis(c, resources, connection, connection.sync(), connection.async(),
                    Breakers.single(Redis::newBreaker));
        } catch (RuntimeException e) {
            if (client != null) {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
            resources.shutdown(0, 2, TimeUnit.SECONDS);
            throw e;
        }
    }

    /**
     * Reconnecting by itself, failing commands at once while disconnected rather than queueing them, and giving up
     * on a connection attempt (to a host that vanished, say) within the command timeout.
     */
    private static <B extends ClientOptions.Builder> B failFast(B options, Duration timeout) {
        options.autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .timeoutOptions(TimeoutOptions.enabled(timeout))
                .socketOptions(SocketOptions.builder().connectTimeout(timeout).build());
        return options;
    }

    /**
     * When the node learns the cluster's layout again: on a redirection or a lost connection (a failover, slots
     * moved), at most once per {@link #ADAPTIVE_REFRESH_GAP}, and every {@link #PERIODIC_REFRESH} besides.
     */
    static ClusterTopologyRefreshOptions topologyRefresh() {
        return ClusterTopologyRefreshOptions.builder()
                .enableAllAdaptiveRefreshTriggers()
                // the first refresh after a master died still names it; the one after its replica took over must not wait
                .adaptiveRefreshTriggersTimeout(ADAPTIVE_REFRESH_GAP)
                .refreshTriggersReconnectAttempts(2)
                .enablePeriodicRefresh(PERIODIC_REFRESH)
                .build();
    }

    /** The seed nodes of a {@code redis-cluster://} URI, or null for one of a single server. */
    static List<RedisURI> clusterSeeds(String uri) {
        int colon = uri.indexOf("://");
        String scheme = colon < 0 ? "" : uri.substring(0, colon).toLowerCase(Locale.ROOT);
        if (!scheme.equals(CLUSTER) && !scheme.equals(CLUSTER_TLS)) {
            return null;
        }
        String rest = uri.substring(colon);
        String single = scheme.equals(CLUSTER) ? RedisURI.URI_SCHEME_REDIS : RedisURI.URI_SCHEME_REDIS_SECURE;
        List<RedisURI> seeds = RedisClusterURIUtil.toRedisURIs(URI.create(single + rest));
        if (seeds.isEmpty() || seeds.stream().anyMatch(s -> s.getHost() == null || s.getHost().isEmpty())) {
            throw new IllegalArgumentException("a Redis Cluster URI names its seed nodes: " + CLUSTER
                    + "://host:port[,host:port...]");
        }
        return seeds;
    }

    /** A connection of its own for subscribing to channels; Lettuce subscribes again whenever it reconnects. */
    StatefulRedisPubSubConnection<String, byte[]> connectPubSub() {
        try {
            // on a cluster, any node hears every PUBLISH, which Redis carries to all its nodes
            return client instanceof RedisClusterClient cluster ? cluster.connectPubSub(CODEC)
                    : ((RedisClient) client).connectPubSub(CODEC);
        } catch (RedisException e) {
            throw new StoreUnavailableException("Redis is unavailable: " + e.getMessage(), e);
        }
    }

    /** Publishes without waiting for Redis; a failure is logged, since a message nobody could receive is lost anyway. */
    void publish(String channel, byte[] message) {
        async.publish(channel, message).whenComplete((receivers, failure) -> {
            if (failure != null) {
                LOG.log(System.Logger.Level.DEBUG, "A message to {0} was lost: {1}", channel, failure.getMessage());
            }
        });
    }

    RedisClusterCommands<String, byte[]> commands() {
        return sync;
    }

    /**
     * Runs commands on {@code key} (or on keys sharing its slot), turning Redis's failures into
     * {@link StoreUnavailableException}; while the breaker of the master holding the key is open it fails at once
     * without trying.
     */
    <T> T call(String key, Function<RedisClusterCommands<String, byte[]>, T> commands) {
        return call(breakers.forKey(key), commands);
    }

    /** {@link #call} for commands that name no key (a ping, a flush, a scan of every node). */
    <T> T callWithoutKey(Function<RedisClusterCommands<String, byte[]>, T> commands) {
        return call(breakers.withoutKey(), commands);
    }

    private <T> T call(Breaker breaker, Function<RedisClusterCommands<String, byte[]>, T> commands) {
        if (!breaker.allows()) {
            throw new StoreUnavailableException(REFUSED);
        }
        try {
            T result = commands.apply(sync);
            breaker.succeeded();
            return result;
        } catch (RedisException e) {
            breaker.failed();
            throw new StoreUnavailableException("Redis is unavailable: " + e.getMessage(), e);
        }
    }

    /**
     * {@link #call} without waiting: the commands' stage, completing on Lettuce's I/O thread (which must not be
     * blocked), failed with {@link StoreUnavailableException} as {@link #call} throws it.
     */
    <T> CompletionStage<T> callAsync(String key,
            Function<RedisClusterAsyncCommands<String, byte[]>, CompletionStage<T>> commands) {
        Breaker breaker = breakers.forKey(key);
        if (!breaker.allows()) {
            return CompletableFuture.failedFuture(new StoreUnavailableException(REFUSED));
        }
        CompletionStage<T> sent;
        try {
            sent = commands.apply(async);
        } catch (RedisException e) {
            breaker.failed();
            return CompletableFuture.failedFuture(new StoreUnavailableException("Redis is unavailable: " + e.getMessage(), e));
        }
        return sent.handle((result, failure) -> {
            if (failure == null) {
                breaker.succeeded();
                return result;
            }
            Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause()
                    : failure;
            if (cause instanceof RedisException e) {
                breaker.failed();
                throw new StoreUnavailableException("Redis is unavailable: " + e.getMessage(), e);
            }
            throw failure instanceof CompletionException c ? c : new CompletionException(failure);
        });
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        resources.shutdown(0, 2, TimeUnit.SECONDS);
    }
}
