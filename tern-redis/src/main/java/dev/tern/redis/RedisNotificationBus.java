package dev.tern.redis;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import dev.tern.server.NotificationBus;

import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

/**
 * The nodes of a cluster telling each other of list changes, resource updates, session changes and clients' responses
 * on one Redis pub/sub channel, {@code tern:notices}. Each message names the node that published it, so a node skips its own.
 * Pub/sub delivers at most once: a node cut off from Redis misses what was published meanwhile. Received notices are
 * handed to the receivers in order on one thread of the bus's own, never on Lettuce's I/O threads, so a receiver may
 * call Redis. Thread-safe; close it before the {@link Redis} it was built on.
 */
public final class RedisNotificationBus implements NotificationBus, AutoCloseable {
    private static final System.Logger LOG = System.getLogger("dev.tern.redis");
    /** Notices received but not yet handed on, beyond which new ones are dropped rather than held without bound. */
    private static final int MAX_PENDING = 65_536;
    private static final int NODE_CHARS = 16;

    private final Redis redis;
    private final String node;
    private final StatefulRedisPubSubConnection<String, byte[]> subscription;
    private final List<Consumer<Notice>> receivers = new CopyOnWriteArrayList<>();
    private final ThreadPoolExecutor dispatch;

    /**
     * Subscribes to the channel on a connection of its own.
     *
     * @throws dev.tern.server.StoreUnavailableException when Redis cannot be reached
     */
    public RedisNotificationBus(Redis redis) {
        this.redis = redis;
        byte[] id = new byte[NODE_CHARS / 2];
        new SecureRandom().nextBytes(id);
        this.node = HexFormat.of().formatHex(id);
        this.dispatch = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(MAX_PENDING),
                r -> {
                    Thread t = new Thread(r, "tern-notices");
                    t.setDaemon(true);
                    return t;
                }, (r, pool) -> LOG.log(System.Logger.Level.WARNING, "A notice from another node was dropped: "
                        + MAX_PENDING + " wait already"));
        this.subscription = redis.connectPubSub();
        subscription.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, byte[] message) {
                received(message);
            }
        });
        try {
            subscription.sync().subscribe(Keys.NOTICES);
        } catch (RuntimeException e) {
            close();
            throw new dev.tern.server.StoreUnavailableException("Redis is unavailable: " + e.getMessage(), e);
        }
    }

    @Override
    public void publish(Notice notice) {
        redis.publish(Keys.NOTICES, encode(node, notice));
    }

    @Override
    public void subscribe(Consumer<Notice> receiver) {
        receivers.add(receiver);
    }

    private void received(byte[] message) {
        if (message.length <= NODE_CHARS + 1
                || node.equals(new String(message, 0, NODE_CHARS, StandardCharsets.US_ASCII))) {
            return;
        }
        Notice notice = decode(message);
        if (notice == null) {
            return;
        }
        dispatch.execute(() -> {
            for (Consumer<Notice> r : receivers) {
                try {
                    r.accept(notice);
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "A receiver failed on " + notice, e);
                }
            }
        });
    }

    /** A notice on the wire: the publishing node, a letter for its kind, then its one value, as UTF-8. */
    static byte[] encode(String node, Notice notice) {
        String text = switch (notice) {
            case ListChanged c -> "l" + c.list();
            case ResourceUpdated u -> "r" + u.uri();
            case SessionChanged s -> "s" + s.sessionId();
            case TaskCancelled t -> "t" + t.taskId();
            case ClientResponse r -> "c" + r.sessionId() + "\n" + new String(r.message(), StandardCharsets.UTF_8);
        };
        return (node + text).getBytes(StandardCharsets.UTF_8);
    }

    /** The notice {@link #encode} wrote, or null for one of a kind this node does not know (a newer node's). */
    static Notice decode(byte[] message) {
        String value = new String(message, NODE_CHARS + 1, message.length - NODE_CHARS - 1, StandardCharsets.UTF_8);
        return switch (message[NODE_CHARS]) {
            case 'l' -> new ListChanged(value);
            case 'r' -> new ResourceUpdated(value);
            case 's' -> new SessionChanged(value);
            case 't' -> new TaskCancelled(value);
            case 'c' -> {
                int end = value.indexOf('\n');
                yield end < 0 ? null : new ClientResponse(value.substring(0, end),
                        value.substring(end + 1).getBytes(StandardCharsets.UTF_8));
            }
            default -> null;
        };
    }

    /** Unsubscribes and stops handing notices on. */
    @Override
    public void close() {
        subscription.close();
        dispatch.shutdownNow();
    }
}
