package dev.tern.it;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import dev.tern.protocol.Json;
import dev.tern.protocol.model.CallToolResult;
import dev.tern.redis.Redis;
import dev.tern.redis.RedisEventStore;
import dev.tern.redis.RedisNotificationBus;
import dev.tern.redis.RedisSessionStore;
import dev.tern.server.McpServer;
import dev.tern.server.ResourceSpec;
import dev.tern.server.ToolSpec;
import dev.tern.transport.http.HttpServerTransport;

import tools.jackson.databind.node.ObjectNode;

/**
 * A node sharing its sessions and notices through Redis, with a tool that streams: {@code ticks} sends {@code count}
 * progress notifications {@code intervalMs} apart, then its result; {@code greet} asks the user's name
 * (elicitation); {@code add_tool} adds a tool and {@code touch}
 * tells subscribers that {@code mem://doc} changed, for the clients of every node to hear of. Run as {@code StreamingNodeMain REDIS_URI SECRET}; it
 * prints its URL and serves until its stdin ends or it is killed.
 */
public final class StreamingNodeMain {

    private StreamingNodeMain() {
    }

    public static void main(String[] args) throws Exception {
        ObjectNode schema = (ObjectNode) Json.mapper().readTree("""
                {"type":"object","properties":{"count":{"type":"integer"},"intervalMs":{"type":"integer"}},
                 "required":["count","intervalMs"]}""");
        Redis redis = Redis.connect(args[0]);
        RedisNotificationBus bus = new RedisNotificationBus(redis);
        java.util.concurrent.atomic.AtomicReference<McpServer> self = new java.util.concurrent.atomic.AtomicReference<>();
        McpServer server = McpServer.builder().info("streaming-node", "1").notificationBus(bus)
                .resource(ResourceSpec.builder("mem://doc", "doc").text("a document").build())
                .tool(ToolSpec.builder("add_tool").description("Adds a tool, so the list of tools changes.")
                        .handler((ctx, a) -> {
                            self.get().addTool(ToolSpec.builder("added").description("Added at run time.")
                                    .handler((c, x) -> CallToolResult.text("added")).build());
                            return CallToolResult.text("added");
                        }).build())
                .tool(ToolSpec.builder("greet").description("Asks the user's name (elicitation), then greets them.")
                        .handler((ctx, a) -> {
                            var answer = ctx.elicit("Your name?", (ObjectNode) Json.mapper().readTree(
                                    "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}}}"));
                            return CallToolResult.text("hello " + (answer.content() == null ? "nobody"
                                    : answer.content().path("name").asString()));
                        }).build())
                .tool(ToolSpec.builder("touch").description("Tells the subscribers of mem://doc that it changed.")
                        .handler((ctx, a) -> {
                            self.get().notifyResourceUpdated("mem://doc");
                            return CallToolResult.text("touched");
                        }).build())
                .tool(ToolSpec.builder("ticks").description("Progress notifications a while apart, then the result.")
                        .inputSchema(schema)
                        .handler((ctx, a) -> {
                            int count = a.path("count").asInt();
                            for (int i = 1; i <= count; i++) {
                                Thread.sleep(Duration.ofMillis(a.path("intervalMs").asInt()));
                                ctx.progress(i, (double) count, "tick " + i);
                            }
                            return CallToolResult.text("ticked " + count);
                        })
                        .build())
                .build();
        self.set(server);
        byte[] key = args[1].getBytes(StandardCharsets.UTF_8);
        HttpServerTransport http = HttpServerTransport.builder(server).port(0)
                .sessions(s -> s.store(new RedisSessionStore(redis)).eventStore(new RedisEventStore(redis)).idKeys(key))
                .build().start();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            http.close();
            server.close();
            bus.close();
            redis.close();
        }, "tern-shutdown"));
        System.err.println("streaming node: serving at " + http.url());
        System.err.flush();
        InputStream in = System.in;
        while (in.read() >= 0) {
            // runs until stdin ends: the test that started it is gone or done
        }
        System.exit(0);
    }
}
