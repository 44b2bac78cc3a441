package dev.tern.it;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import dev.tern.examples.UserDirectory;
import dev.tern.examples.UserDirectoryServer;
import dev.tern.protocol.Json;
import dev.tern.protocol.model.ElicitResult;
import dev.tern.protocol.model.LoggingLevel;
import dev.tern.server.Arg;
import dev.tern.server.Hint;
import dev.tern.server.McpServer;
import dev.tern.server.RequestContext;
import dev.tern.server.Tool;
import dev.tern.server.ToolException;

import tools.jackson.databind.node.ObjectNode;

/**
 * The server the interop tests drive official clients against: the user directory example plus tools that send
 * progress and log notifications, ask the user through elicitation, and wait until they are cancelled.
 */
public final class InteropServer {
    /** How long {@code wait_for_cancel} waits before giving up and answering normally. */
    private static final long CANCEL_WAIT_SECONDS = 60;
    /** How long {@code count_with_progress} waits for the client to acknowledge its progress. */
    private static final long ACK_WAIT_SECONDS = 30;

    private final Semaphore progressAcks = new Semaphore(0);

    private final AtomicInteger cancellations = new AtomicInteger();
    private final AtomicReference<String> lastCancelReason = new AtomicReference<>();

    public static McpServer create() {
        return McpServer.builder()
                .info("tern-interop", "0.1.0")
                .instructions("The user directory, plus tools that exercise progress, logging, elicitation and cancellation.")
                .register(new UserDirectoryServer(UserDirectory.generate(1_000)))
                .register(new InteropServer())
                .build();
    }

    public record Counted(int steps, boolean acknowledged) {
    }

    public record Logged(int messages) {
    }

    public record Greeting(String action, String name) {
    }

    public record Cancellations(int count, String lastReason) {
    }

    /**
     * Reports progress at each step, then answers once the client has called {@code acknowledge_progress} (or
     * after a timeout). Clients that dispatch notifications asynchronously but responses at once can drop progress
     * that arrives in the same read as the response; waiting for the acknowledgement keeps the check exact.
     */
    @Tool(name = "count_with_progress", description = "Counts to steps, reporting progress at each step, and answers "
            + "once acknowledge_progress has been called.")
    public Counted countWithProgress(@Arg(description = "How many steps (1-100)", defaultValue = "3") int steps,
            RequestContext context) throws InterruptedException {
        checkSteps(steps);
        for (int i = 1; i <= steps; i++) {
            context.progress(i, (double) steps, "step " + i + " of " + steps);
        }
        return new Counted(steps, progressAcks.tryAcquire(ACK_WAIT_SECONDS, TimeUnit.SECONDS));
    }

    @Tool(name = "acknowledge_progress", description = "Lets a waiting count_with_progress call answer.")
    public String acknowledgeProgress() {
        progressAcks.release();
        return "acknowledged";
    }

    @Tool(name = "log_steps", description = "Sends one log message per step, at levels debug, info, warning in turn.")
    public Logged logSteps(@Arg(description = "How many messages (1-100)", defaultValue = "3") int steps,
            RequestContext context) {
        checkSteps(steps);
        LoggingLevel[] levels = {LoggingLevel.DEBUG, LoggingLevel.INFO, LoggingLevel.WARNING};
        for (int i = 1; i <= steps; i++) {
            ObjectNode data = Json.object();
            data.put("step", i);
            data.put("of", steps);
            context.log(levels[(i - 1) % levels.length], "interop", data);
        }
        return new Logged(steps);
    }

    @Tool(name = "ask_name", description = "Asks the user for their name and greets them.")
    public Greeting askName(RequestContext context) {
        ObjectNode schema = Json.object();
        schema.put("type", "object");
        ObjectNode name = schema.putObject("properties").putObject("name");
        name.put("type", "string");
        name.put("title", "Name");
        name.put("description", "How to address you");
        schema.putArray("required").add("name");
        ElicitResult answer = context.elicit("What is your name?", schema);
        if (!answer.accepted()) {
            return new Greeting(answer.action(), null);
        }
        String given = answer.content() == null ? "" : answer.content().path("name").asString("");
        return new Greeting(answer.action(), given);
    }

    @Tool(name = "wait_for_cancel", description = "Reports progress once, then waits until the call is cancelled.")
    public String waitForCancel(RequestContext context) throws InterruptedException {
        CountDownLatch cancelled = new CountDownLatch(1);
        context.cancellation().onCancel(() -> {
            lastCancelReason.set(context.cancellation().reason());
            cancellations.incrementAndGet();
            cancelled.countDown();
        });
        context.progress(1, null, "waiting to be cancelled");
        if (cancelled.await(CANCEL_WAIT_SECONDS, TimeUnit.SECONDS)) {
            return "cancelled";
        }
        return "not cancelled after " + CANCEL_WAIT_SECONDS + " s";
    }

    @Tool(name = "cancellations", description = "How many wait_for_cancel calls were cancelled, and the last reason.",
            readOnly = Hint.TRUE)
    public Cancellations cancellations() {
        return new Cancellations(cancellations.get(), lastCancelReason.get());
    }

    private static void checkSteps(int steps) {
        if (steps < 1 || steps > 100) {
            throw new ToolException("steps must be between 1 and 100, was " + steps);
        }
    }
}
