package dev.tern.client;

import java.time.Duration;
import java.util.function.UnaryOperator;

import dev.tern.examples.UserDirectory;
import dev.tern.examples.UserDirectoryServer;
import dev.tern.protocol.Json;
import dev.tern.protocol.model.CallToolResult;
import dev.tern.protocol.model.LoggingLevel;
import dev.tern.server.Arg;
import dev.tern.server.McpServer;
import dev.tern.server.RequestContext;
import dev.tern.server.Tool;
import dev.tern.server.ToolException;
import dev.tern.server.ToolSpec;
import dev.tern.transport.http.HttpServerTransport;

import tools.jackson.databind.node.ObjectNode;

/** Tern servers on 127.0.0.1 and an ephemeral port for the client tests. */
public final class TestServers {
    private TestServers() {
    }

    /**
     * The user directory plus a tool that reports progress, one that always fails, and one with an
     * {@code x-mcp-header} parameter.
     */
    public static McpServer directory() {
        return McpServer.builder()
                .info("tern-client-test", "0.1.0")
                .register(new UserDirectoryServer(UserDirectory.generate(1_000)))
                .register(new Extras())
                .tool(regionEcho())
                .build();
    }

    /** A tool whose {@code region} argument is mirrored into an {@code Mcp-Param-Region} header (2026-07-28). */
    static ToolSpec regionEcho() {
        ObjectNode schema = (ObjectNode) Json.mapper().readTree("""
                {"type":"object","properties":{
                  "region":{"type":"string","x-mcp-header":"Region"},
                  "query":{"type":"string"}},
                 "required":["region"]}""");
        return ToolSpec.builder("region_echo").description("Echoes the region it was called for.").inputSchema(schema)
                .handler((context, arguments) -> CallToolResult.text("region " + arguments.path("region").asString()))
                .build();
    }

    public static final class Extras {
        /** How many {@code slow} calls saw their cancellation, in any server of this process. */
        static final java.util.concurrent.atomic.AtomicInteger CANCELLED = new java.util.concurrent.atomic.AtomicInteger();
        /** How many {@code slow} calls have started, in any server of this process. */
        static final java.util.concurrent.atomic.AtomicInteger STARTED = new java.util.concurrent.atomic.AtomicInteger();

        public record Counted(int steps) {
        }

        @Tool(name = "count", description = "Counts to steps, reporting progress at each one.")
        public Counted count(@Arg(description = "How many steps") int steps, RequestContext context) {
            for (int i = 1; i <= steps; i++) {
                context.progress(i, (double) steps, "step " + i);
            }
            return new Counted(steps);
        }

        @Tool(name = "log_twice", description = "Logs one debug and one warning message.")
        public String logTwice(RequestContext context) {
            context.log(LoggingLevel.DEBUG, "test", "a debug message");
            context.log(LoggingLevel.WARNING, "test", "a warning message");
            return "logged";
        }

        @Tool(name = "slow", description = "Answers after millis (at most 10 s), or when cancelled.")
        public String slow(@Arg(description = "How long to take") int millis, RequestContext context) {
            STARTED.incrementAndGet();
            long end = System.nanoTime() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(Math.min(millis, 10_000));
            while (System.nanoTime() < end && !context.isCancelled()) {
                java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
            }
            if (context.isCancelled()) {
                CANCELLED.incrementAndGet();
                return "cancelled";
            }
            return "done";
        }

        @Tool(name = "always_fails", description = "Fails as a tool error.")
        public String alwaysFails() {
            throw new ToolException("this tool always fails");
        }
    }

    /** A running HTTP transport with its server; close stops both. */
    public record Running(McpServer server, HttpServerTransport transport) implements AutoCloseable {
        public int port() {
            return transport.port();
        }

        @Override
        public void close() {
            transport.close();
            server.close();
        }
    }

    public static Running http(UnaryOperator<HttpServerTransport.Builder> config) throws InterruptedException {
        McpServer server = directory();
        HttpServerTransport.Builder b = HttpServerTransport.builder(server).host("127.0.0.1").port(0)
                .shutdownTimeout(Duration.ofMillis(200));
        return new Running(server, config.apply(b).build().start());
    }
}
