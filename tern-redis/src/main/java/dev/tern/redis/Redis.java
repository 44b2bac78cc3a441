package dev.tern.redis;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

import dev.tern.server.StoreUnavailableException;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;

/**
 * One node's connection to Redis, shared by the stores built on it: keys are text, values bytes. Every command waits
 * at most the command timeout, and while the connection is down commands fail at once instead of queueing, so a
 * Redis outage costs callers an error, not a thread. Lettuce reconnects by itself. Thread-safe.
 */
public final class Redis implements AutoCloseable {
    /** How long one command may take before its caller is told Redis is unavailable. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);

    private static final System.Logger LOG = System.getLogger("dev.tern.redis");
    private static final String LETTUCE_IO_URING = "io.lettuce.core.iouring";

    private final RedisClient client;
    private final ClientResources resources;
    private final StatefulRedisConnection<String, byte[]> connection;
    private final Breaker breaker = new Breaker(3, Duration.ofSeconds(1));
    private final RedisCodec<String, byte[]> codec = RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE);

    private Redis(RedisClient client, ClientResources resources, StatefulRedisConnection<String, byte[]> connection) {
        this.client = client;
        this.resources = resources;
        this.connection = connection;
    }

    /** Connects to {@code uri} ({@code redis://host:port[/db]}, {@code rediss://} for TLS). */
    public static Redis connect(String uri) {
        return connect(uri, DEFAULT_TIMEOUT);
    }

    public static Redis connect(String uri, Duration timeout) {
        Objects.requireNonNull(uri, "uri");
        if (System.getProperty(LETTUCE_IO_URING) == null) {
            // Lettuce warns at start whenever both epoll and io_uring are there; it picks epoll, as this says.
            System.setProperty(LETTUCE_IO_URING, "false");
        }
        RedisURI parsed = RedisURI.create(uri);
        parsed.setTimeout(timeout);
        // Reconnect attempts at most a second apart, so that a node is back within a second of Redis.
        ClientResources resources = ClientResources.builder()
                .reconnectDelay(Delay.exponential(Duration.ofMillis(10), Duration.ofSeconds(1), 2, TimeUnit.MILLISECONDS))
                .build();
        RedisClient client = RedisClient.create(resources, parsed);
        client.setOptions(ClientOptions.builder()
                .autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .timeoutOptions(TimeoutOptions.enabled(timeout))
                .build());
        try {
            RedisCodec<String, byte[]> codec = RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE);
            return new Redis(client, resources, client.connect(codec));
        } catch (RuntimeException e) {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            resources.shutdown(0, 2, TimeUnit.SECONDS);
            throw e;
        }
    }

    /** A connection of its own for subscribing to channels; Lettuce subscribes again whenever it reconnects. */
    StatefulRedisPubSubConnection<String, byte[]> connectPubSub() {
        try {
            return client.connectPubSub(codec);
        } catch (RedisException e) {
            throw new StoreUnavailableException("Redis is unavailable: " + e.getMessage(), e);
        }
    }

    /** Publishes without waiting for Redis; a failure is logged, since a message nobody could receive is lost anyway. */
    void publish(String channel, byte[] message) {
        connection.async().publish(channel, message).whenComplete((receivers, failure) -> {
            if (failure != null) {
                LOG.log(System.Logger.Level.DEBUG, "A message to {0} was lost: {1}", channel, failure.getMessage());
            }
        });
    }

    RedisClusterCommands<String, byte[]> commands() {
        return connection.sync();
    }

    /**
     * Runs commands, turning Redis's failures into {@link StoreUnavailableException}; while the breaker is open it
     * fails at once without trying.
     */
    <T> T call(java.util.function.Function<RedisClusterCommands<String, byte[]>, T> commands) {
        if (!breaker.allows()) {
            throw new StoreUnavailableException("Redis is unavailable (recent calls failed)");
        }
        try {
            T result = commands.apply(connection.sync());
            breaker.succeeded();
            return result;
        } catch (RedisException e) {
            breaker.failed();
            throw new StoreUnavailableException("Redis is unavailable: " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        resources.shutdown(0, 2, TimeUnit.SECONDS);
    }
}
