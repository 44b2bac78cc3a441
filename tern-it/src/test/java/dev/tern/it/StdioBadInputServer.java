package dev.tern.it;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.tern.examples.UserDirectory;
import dev.tern.examples.UserDirectoryServer;
import dev.tern.server.McpServer;
import dev.tern.server.RequestContext;
import dev.tern.server.Tool;
import dev.tern.transport.stdio.StdioServerTransport;

/** The server the stdio bad-input tests attack: the user directory plus tools with observable side effects. */
public final class StdioBadInputServer {
    private final AtomicInteger bumps = new AtomicInteger();
    private final AtomicInteger cancellations = new AtomicInteger();

    public record Count(int value) {
    }

    @Tool(name = "bump", description = "Adds one to a counter")
    public Count bump() {
        return new Count(bumps.incrementAndGet());
    }

    @Tool(name = "bumps", description = "The counter")
    public Count bumps() {
        return new Count(bumps.get());
    }

    @Tool(name = "boom", description = "Always fails with an internal exception")
    public String boom() {
        throw new IllegalStateException("secret-database-password=hunter2");
    }

    @Tool(name = "hang", description = "Never finishes on its own")
    public String hang() throws InterruptedException {
        Thread.sleep(TimeUnit.MINUTES.toMillis(10));
        return "woke up";
    }

    @Tool(name = "wait_cancel", description = "Waits until cancelled")
    public String waitCancel(RequestContext ctx) throws InterruptedException {
        try {
            Thread.sleep(TimeUnit.SECONDS.toMillis(30));
            return "not cancelled";
        } catch (InterruptedException e) {
            if (ctx.isCancelled()) {
                cancellations.incrementAndGet();
            }
            throw e;
        }
    }

    @Tool(name = "cancellations", description = "How many calls saw their cancellation")
    public Count cancellations() {
        return new Count(cancellations.get());
    }

    public static void main(String[] args) throws Exception {
        McpServer server = McpServer.builder()
                .info("tern-bad-input", "0.1.0")
                .handlerTimeout(Duration.ofSeconds(1))
                .register(new UserDirectoryServer(UserDirectory.generate(100)))
                .register(new StdioBadInputServer())
                .build();
        StdioServerTransport transport = StdioServerTransport.builder(server).shutdownDeadline(Duration.ofSeconds(2)).build();
        Runtime.getRuntime().addShutdownHook(new Thread(transport::stop));
        StdioServerTransport.Outcome outcome = transport.serve();
        server.close();
        System.exit(outcome == StdioServerTransport.Outcome.OUTPUT_CLOSED ? 1 : 0);
    }
}
