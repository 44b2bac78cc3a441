package dev.tern.it;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.tern.protocol.Json;
import dev.tern.protocol.model.Content;
import dev.tern.protocol.model.CreateMessageResult;
import dev.tern.protocol.model.ElicitResult;
import dev.tern.protocol.model.LoggingLevel;
import dev.tern.protocol.model.Root;
import dev.tern.protocol.model.TextContent;
import dev.tern.server.Arg;
import dev.tern.server.McpServer;
import dev.tern.server.RequestContext;
import dev.tern.server.Tool;
import dev.tern.server.ToolException;
import dev.tern.transport.stdio.StdioServerTransport;

import tools.jackson.databind.node.ObjectNode;

/**
 * A server whose tools use what a request context can do (progress, logging, elicitation, sampling, roots and
 * cancellation), served over stdio by {@link #main} for the Java SDK interop tests. Lists are paged three items
 * at a time so that clients see cursors.
 */
public final class JavaSdkInteropServer {
    /** Items per page of every list. */
    public static final int PAGE_SIZE = 3;

    private final Map<String, CompletableFuture<JobOutcome>> jobs = new ConcurrentHashMap<>();

    public static McpServer create() {
        return McpServer.builder()
                .info("tern-java-sdk-interop", "1.2.3")
                .pageSize(PAGE_SIZE)
                .register(new JavaSdkInteropServer())
                .build();
    }

    public static void main(String[] args) throws InterruptedException {
        OutputStream stdout = new FileOutputStream(FileDescriptor.out);
        System.setOut(new PrintStream(new FileOutputStream(FileDescriptor.err), true));
        McpServer server = create();
        StdioServerTransport transport = StdioServerTransport.builder(server)
                .input(System.in)
                .output(stdout)
                .shutdownDeadline(Duration.ofSeconds(2))
                .build();
        try {
            transport.serve();
        } finally {
            server.close();
        }
    }

    public record Counted(int count) {
    }

    /** Components that may be null are not required: a null component is left out of the structured content. */
    public record ElicitOutcome(String action, @Arg(required = false) String name, @Arg(required = false) Integer age) {
    }

    public record Sampled(@Arg(required = false) String role, @Arg(required = false) String text,
            @Arg(required = false) String model, @Arg(required = false) String stopReason) {
    }

    public record RootList(List<Root> roots) {
    }

    /** What became of a {@code slow_task} job: "cancelled" (with the reason), "finished" or "running". */
    public record JobOutcome(String job, String state, @Arg(required = false) String reason) {
    }

    public record Echoed(String text) {
    }

    @Tool(name = "count_to", description = "Counts to n, reporting progress and logging each step.")
    public Counted countTo(@Arg(description = "How far to count (1-20)") int n, RequestContext context) {
        if (n < 1 || n > 20) {
            throw new ToolException("n must be between 1 and 20, was " + n);
        }
        for (int i = 1; i <= n; i++) {
            context.progress(i, (double) n, "step " + i + " of " + n);
            context.log(LoggingLevel.DEBUG, "interop", "debug step " + i);
            context.log(LoggingLevel.INFO, "interop", "step " + i);
        }
        context.log(LoggingLevel.WARNING, "interop", "counted to " + n);
        return new Counted(n);
    }

    @Tool(name = "ask_user", description = "Asks the user for their name and age through a form.")
    public ElicitOutcome askUser(@Arg(description = "The question to show") String question, RequestContext context) {
        ObjectNode schema = Json.object();
        schema.put("type", "object");
        ObjectNode properties = schema.putObject("properties");
        properties.putObject("name").put("type", "string").put("description", "Your name");
        properties.putObject("age").put("type", "integer").put("minimum", 0);
        schema.putArray("required").add("name");
        ElicitResult answer = context.elicit(question, schema);
        if (!answer.accepted()) {
            return new ElicitOutcome(answer.action(), null, null);
        }
        ObjectNode content = answer.content();
        return new ElicitOutcome(answer.action(), content.path("name").asString(null),
                content.has("age") ? content.get("age").asInt() : null);
    }

    @Tool(name = "open_link", description = "Asks the user to complete a step at a URL.")
    public ElicitOutcome openLink(@Arg(description = "The URL to open") String url, RequestContext context) {
        ElicitResult answer = context.elicitUrl("Please sign in", url, "elicitation-42");
        return new ElicitOutcome(answer.action(), null, null);
    }

    @Tool(name = "ask_model", description = "Asks the client's model to answer a prompt.")
    public Sampled askModel(@Arg(description = "The prompt") String prompt, RequestContext context) {
        ObjectNode params = Json.object();
        ObjectNode message = params.putArray("messages").addObject();
        message.put("role", "user");
        message.putObject("content").put("type", "text").put("text", prompt);
        params.put("systemPrompt", "Answer briefly.");
        params.put("maxTokens", 64);
        CreateMessageResult answer = context.sample(params);
        Content content = answer.content();
        String text = content instanceof TextContent t ? t.text() : String.valueOf(content);
        return new Sampled(answer.role() == null ? null : answer.role().wire(),
                text, answer.model(), answer.stopReason());
    }

    @Tool(name = "list_roots", description = "Lists the client's roots.")
    public RootList listRoots(RequestContext context) {
        return new RootList(context.roots());
    }

    @Tool(name = "slow_task", description = "Runs until cancelled (at most a minute); job_status tells what became of it.")
    public String slowTask(@Arg(description = "A name for this run") String job, RequestContext context)
            throws InterruptedException {
        CompletableFuture<JobOutcome> outcome = jobs.computeIfAbsent(job, k -> new CompletableFuture<>());
        CountDownLatch cancelled = new CountDownLatch(1);
        context.cancellation().onCancel(cancelled::countDown);
        context.progress(1, null, "started");
        try {
            if (cancelled.await(60, TimeUnit.SECONDS)) {
                outcome.complete(new JobOutcome(job, "cancelled", context.cancellation().reason()));
            } else {
                outcome.complete(new JobOutcome(job, "finished", null));
            }
        } catch (InterruptedException e) {
            outcome.complete(new JobOutcome(job, "cancelled", context.cancellation().reason()));
            throw e;
        }
        return "finished " + job;
    }

    @Tool(name = "job_status", description = "Waits up to ten seconds for a slow_task job to end and tells how it ended.")
    public JobOutcome jobStatus(@Arg(description = "The job's name") String job) throws Exception {
        CompletableFuture<JobOutcome> outcome = jobs.get(job);
        if (outcome == null) {
            return new JobOutcome(job, "unknown", null);
        }
        try {
            return outcome.get(10, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            return new JobOutcome(job, "running", null);
        }
    }

    @Tool(name = "echo", description = "Echoes its text.")
    public Echoed echo(@Arg(description = "Text to echo") String text) {
        return new Echoed(text);
    }
}
