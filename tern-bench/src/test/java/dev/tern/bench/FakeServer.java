package dev.tern.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * An HTTP server on 127.0.0.1 that answers every POST with a successful MCP tool result after a known service time,
 * and can be told to stall: every request that arrives (or is being served) before the stall ends waits for its end.
 * It reports the service time in a {@code Server-Timing} header.
 */
final class FakeServer implements AutoCloseable {
    private static final byte[] RESULT = ("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\","
            + "\"text\":\"ok\"}],\"isError\":false}}").getBytes(StandardCharsets.UTF_8);
    private static final byte[] TOOL_ERROR = ("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":"
            + "\"text\",\"text\":\"no such user\"}],\"isError\":true}}").getBytes(StandardCharsets.UTF_8);

    private final HttpServer server;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final long serviceNanos;
    private final long slowServiceNanos;
    private volatile long stallUntil;
    final AtomicLong served = new AtomicLong();

    FakeServer(Duration serviceTime) throws IOException {
        this(serviceTime, serviceTime);
    }

    /** Requests whose body mentions {@code "slow"} take {@code slowServiceTime}, the others {@code serviceTime}. */
    FakeServer(Duration serviceTime, Duration slowServiceTime) throws IOException {
        this.serviceNanos = serviceTime.toNanos();
        this.slowServiceNanos = slowServiceTime.toNanos();
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1024);
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
    }

    URI uri() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/mcp");
    }

    /** From now on, for {@code length}, requests wait; they are answered when it ends. */
    void stallFor(Duration length) {
        stallUntil = System.nanoTime() + length.toNanos();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange; InputStream in = exchange.getRequestBody()) {
            byte[] body = in.readAllBytes();
            String text = new String(body, StandardCharsets.UTF_8);
            long service = text.contains("\"slow\"") ? slowServiceNanos : serviceNanos;
            sleepUntil(System.nanoTime() + service);
            sleepUntil(stallUntil);
            served.incrementAndGet();
            if (!"POST".equals(exchange.getRequestMethod())) {
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            byte[] reply = text.contains("\"missing\"") ? TOOL_ERROR : RESULT;
            if (text.contains("\"sse\"")) {
                // As a Streamable HTTP server may: a progress notification first, then the response, as SSE events.
                reply = ("event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\","
                        + "\"params\":{\"progressToken\":1,\"progress\":1}}\n\nid: 2\nevent: message\ndata: "
                        + new String(text.contains("\"isError\"") ? TOOL_ERROR : RESULT, StandardCharsets.UTF_8)
                        + "\n\n").getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().add("Content-Type", "text/event-stream");
                exchange.sendResponseHeaders(200, reply.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(reply);
                }
                return;
            }
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.getResponseHeaders().add("Server-Timing",
                    "parse;dur=0.010, queue;dur=0.002, exec;dur=" + service / 1e6 + ", ser;dur=0.005");
            exchange.sendResponseHeaders(200, reply.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(reply);
            }
        }
    }

    private static void sleepUntil(long instant) {
        long wait;
        while ((wait = instant - System.nanoTime()) > 0) {
            try {
                Thread.sleep(Duration.ofNanos(wait));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
