package dev.tern.transport.http;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.tern.protocol.Json;
import dev.tern.protocol.model.CallToolResult;
import dev.tern.server.McpServer;
import dev.tern.server.ToolSpec;

import tools.jackson.databind.node.ObjectNode;

/**
 * A small user directory served over HTTP in the tests, with tools that let a test see what the server did:
 * {@code get_user}/{@code search_users} (the well-behaved workload), {@code count} (a side effect to prove a request
 * never ran), {@code slow} (runs until released or cancelled, recording which), {@code chatty} (streams progress
 * notifications, for slow-reader tests).
 */
final class DirectoryFixture {
    /** The longest any tool waits; every loop in the tools is bounded by it. */
    static final long MAX_WAIT_MILLIS = 30_000;

    final AtomicInteger counted = new AtomicInteger();
    final Set<String> started = ConcurrentHashMap.newKeySet();
    final Set<String> cancelled = ConcurrentHashMap.newKeySet();
    final Set<String> finished = ConcurrentHashMap.newKeySet();
    final Map<String, Integer> chattySent = new ConcurrentHashMap<>();
    private final Map<String, CountDownLatch> releases = new ConcurrentHashMap<>();
    private final Map<String, CountDownLatch> startedLatches = new ConcurrentHashMap<>();
    final McpServer server;

    DirectoryFixture() {
        server = McpServer.builder()
                .info("test-user-directory", "1.0.0")
                // chatty floods on purpose: the transport's own bounds on a slow reader are what these tests check
                .notificationRates(1_000_000, 1_000_000)
                .tool(ToolSpec.builder("get_user").description("Fetch one user by id.")
                        .inputSchema(schema(Map.of("id", "string"), "id"))
                        .handler((ctx, args) -> user(args.path("id").asString()))
                        .build())
                .tool(ToolSpec.builder("search_users").description("Users whose name contains the query.")
                        .inputSchema(schema(Map.of("query", "string"), "query"))
                        .handler((ctx, args) -> CallToolResult.text("[\"user7\"]"))
                        .build())
                .tool(ToolSpec.builder("lookup").description("A user by id in one region; the region is routed by header.")
                        .inputSchema(regionSchema())
                        .handler((ctx, args) -> user(args.path("id").asString()))
                        .build())
                .tool(ToolSpec.builder("count").description("Counts its calls.")
                        .inputSchema(schema(Map.of(), null))
                        .handler((ctx, args) -> CallToolResult.text("count=" + counted.incrementAndGet()))
                        .build())
                .tool(ToolSpec.builder("slow").description("Runs until released or cancelled.")
                        .inputSchema(schema(Map.of("tag", "string"), "tag"))
                        .handler((ctx, args) -> {
                            String tag = args.path("tag").asString();
                            started.add(tag);
                            startedLatch(tag).countDown();
                            ctx.progress(1, null, "started " + tag);
                            CountDownLatch release = release(tag);
                            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(MAX_WAIT_MILLIS);
                            while (System.nanoTime() < deadline) {
                                if (ctx.isCancelled()) {
                                    cancelled.add(tag);
                                    return CallToolResult.text("cancelled " + tag);
                                }
                                try {
                                    if (release.await(10, TimeUnit.MILLISECONDS)) {
                                        break;
                                    }
                                } catch (InterruptedException e) {
                                    cancelled.add(tag);
                                    return CallToolResult.text("interrupted " + tag);
                                }
                            }
                            finished.add(tag);
                            return CallToolResult.text("done " + tag);
                        })
                        .build())
                .tool(ToolSpec.builder("chatty").description("Streams progress until done or cancelled.")
                        .inputSchema(schema(Map.of("tag", "string", "events", "integer", "size", "integer"), "tag"))
                        .handler((ctx, args) -> {
                            String tag = args.path("tag").asString();
                            int events = args.path("events").asInt(1000);
                            String filler = "x".repeat(args.path("size").asInt(1024));
                            started.add(tag);
                            startedLatch(tag).countDown();
                            for (int i = 1; i <= events; i++) {
                                if (ctx.isCancelled()) {
                                    cancelled.add(tag);
                                    return CallToolResult.text("cancelled");
                                }
                                ctx.progress(i, (double) events, filler);
                                chattySent.merge(tag, 1, Integer::sum);
                            }
                            finished.add(tag);
                            return CallToolResult.text("sent " + events);
                        })
                        .build())
                .build();
    }

    private static CallToolResult user(String id) {
        ObjectNode user = Json.object();
        user.put("id", id).put("username", "user" + id).put("name", "User " + id)
                .put("email", "user" + id + "@example.com").put("title", "Engineer").put("active", true);
        user.putObject("address").put("city", "Lisbon").put("country", "PT");
        return CallToolResult.text(Json.mapper().writeValueAsString(user));
    }

    private static ObjectNode schema(Map<String, String> properties, String required) {
        ObjectNode schema = Json.object();
        schema.put("type", "object");
        ObjectNode props = schema.putObject("properties");
        properties.forEach((name, type) -> props.putObject(name).put("type", type));
        if (required != null) {
            schema.putArray("required").add(required);
        }
        return schema;
    }

    private static ObjectNode regionSchema() {
        ObjectNode schema = schema(Map.of("id", "string", "region", "string"), "id");
        ((ObjectNode) schema.get("properties").get("region")).put("x-mcp-header", "Region");
        return schema;
    }

    CountDownLatch release(String tag) {
        return releases.computeIfAbsent(tag, t -> new CountDownLatch(1));
    }

    private CountDownLatch startedLatch(String tag) {
        return startedLatches.computeIfAbsent(tag, t -> new CountDownLatch(1));
    }

    /** Waits until the tool run tagged {@code tag} has started. */
    void awaitStarted(String tag) throws InterruptedException {
        if (!startedLatch(tag).await(20, TimeUnit.SECONDS)) {
            throw new AssertionError("tool run " + tag + " did not start");
        }
    }

    /** Waits (bounded) until {@code condition} holds. */
    static void await(String what, java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for: " + what);
            }
            Thread.sleep(10);
        }
    }
}
