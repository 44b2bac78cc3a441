package dev.tern.redis;

import java.util.function.BiConsumer;

import dev.tern.server.McpServer;
import dev.tern.transport.http.HttpServerTransport;

/**
 * One Tern node of a test on Redis: its own connection, its notification bus (or none), its server and its HTTP
 * transport keeping sessions and their events in Redis; closed in the reverse order.
 */
record TernNode(McpServer server, HttpServerTransport transport, RedisNotificationBus bus, Redis redis)
        implements AutoCloseable {

    /** A node on {@code redisUri} whose features {@code features} adds, given the node's connection; with a bus. */
    static TernNode start(String redisUri, BiConsumer<McpServer.Builder, Redis> features) throws InterruptedException {
        return start(redisUri, true, features);
    }

    static TernNode start(String redisUri, boolean withBus, BiConsumer<McpServer.Builder, Redis> features)
            throws InterruptedException {
        Redis redis = Redis.connect(redisUri);
        RedisNotificationBus bus = null;
        McpServer server = null;
        try {
            McpServer.Builder builder = McpServer.builder();
            if (withBus) {
                bus = new RedisNotificationBus(redis);
                builder.notificationBus(bus);
            }
            features.accept(builder, redis);
            server = builder.build();
            HttpServerTransport transport = HttpServerTransport.builder(server).port(0)
                    .sessions(s -> s.store(new RedisSessionStore(redis)).eventStore(new RedisEventStore(redis)))
                    .build().start();
            return new TernNode(server, transport, bus, redis);
        } catch (RuntimeException | Error | InterruptedException e) {
            if (server != null) {
                server.close();
            }
            if (bus != null) {
                bus.close();
            }
            redis.close();
            throw e;
        }
    }

    String url() {
        return transport.url();
    }

    @Override
    public void close() {
        transport.close();
        server.close();
        if (bus != null) {
            bus.close();
        }
        redis.close();
    }
}
