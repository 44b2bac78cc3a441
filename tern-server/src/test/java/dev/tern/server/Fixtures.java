package dev.tern.server;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.tern.protocol.Json;
import dev.tern.protocol.model.CallToolResult;
import dev.tern.protocol.model.Content;
import dev.tern.protocol.model.GetPromptResult;
import dev.tern.protocol.model.LoggingLevel;
import dev.tern.protocol.model.PromptMessage;
import dev.tern.protocol.model.ReadResourceResult;
import dev.tern.protocol.model.ResourceContents;

import tools.jackson.databind.node.ObjectNode;

/** Tools, resources and prompts the dispatch tests share, and what their handlers observed. */
final class Fixtures {

    record Add(@Arg(description = "first") int a, @Arg(description = "second") int b) {
    }

    record Sum(int sum) {
    }

    /** What a blocking handler saw while it was being cancelled. */
    static final class Blocker {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch exited = new CountDownLatch(1);
        volatile boolean interrupted;
        volatile boolean sawCancelled;
        volatile String reason;
        volatile Thread thread;

        void awaitEntered() throws InterruptedException {
            if (!entered.await(20, TimeUnit.SECONDS)) {
                throw new AssertionError("the handler did not start");
            }
        }

        /** Waits until the handler has returned and its thread (which sends the response) has ended. */
        void awaitFinished() throws InterruptedException {
            if (!exited.await(20, TimeUnit.SECONDS)) {
                throw new AssertionError("the handler did not end");
            }
            Thread t = thread;
            if (t != null && !t.join(Duration.ofSeconds(20))) {
                throw new AssertionError("the request thread did not end");
            }
        }
    }

    final AtomicInteger echoCalls = new AtomicInteger();
    final AtomicInteger addCalls = new AtomicInteger();
    final Blocker sleeper = new Blocker();
    final Blocker poller = new Blocker();

    ToolSpec echo() {
        ObjectNode schema = (ObjectNode) Json.mapper().readTree(
                "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},\"required\":[\"text\"]}");
        return ToolSpec.builder("echo").description("Echoes text").inputSchema(schema).handler((ctx, args) -> {
            echoCalls.incrementAndGet();
            return CallToolResult.text(args.get("text").stringValue());
        }).build();
    }

    ToolSpec add() {
        return ToolSpec.builder("add").description("Adds two integers").output(Sum.class)
                .handler(Add.class, (ctx, a) -> {
                    addCalls.incrementAndGet();
                    return new Sum(a.a() + a.b());
                }).build();
    }

    static ToolSpec failing() {
        return ToolSpec.builder("fail_tool").handler((ctx, args) -> {
            throw new ToolException("The city 'Atlantis' is unknown; try a real city");
        }).build();
    }

    static ToolSpec crashing() {
        return ToolSpec.builder("crash").handler((ctx, args) -> {
            throw new IllegalStateException("connection to db://admin:hunter2@10.0.0.1 failed");
        }).build();
    }

    /** Sleeps until interrupted. */
    ToolSpec sleeping() {
        return ToolSpec.builder("sleep").handler((ctx, args) -> sleepUntilInterrupted(sleeper, ctx)).build();
    }

    /** A handler's body that sleeps until interrupted and records in {@code b} what it saw. */
    static CallToolResult sleepUntilInterrupted(Blocker b, RequestContext ctx) throws InterruptedException {
        b.thread = Thread.currentThread();
        b.entered.countDown();
        try {
            Thread.sleep(Duration.ofMinutes(5));
            return CallToolResult.text("woke up");
        } catch (InterruptedException e) {
            b.interrupted = true;
            b.sawCancelled = ctx.isCancelled();
            b.reason = ctx.cancellation().reason();
            throw e;
        } finally {
            b.exited.countDown();
        }
    }

    /** Ignores interrupts, polls isCancelled() and then returns a normal result. */
    ToolSpec polling() {
        return ToolSpec.builder("poll").handler((ctx, args) -> {
            Blocker b = poller;
            b.thread = Thread.currentThread();
            b.entered.countDown();
            try {
                long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
                while (!ctx.isCancelled() && System.nanoTime() < deadline) {
                    try {
                        Thread.sleep(5);
                    } catch (InterruptedException e) {
                        b.interrupted = true;
                    }
                }
                b.sawCancelled = ctx.isCancelled();
                ctx.progress(100, null, "after cancel");
                ctx.log(LoggingLevel.EMERGENCY, "after cancel");
                return CallToolResult.text("finished anyway");
            } finally {
                b.exited.countDown();
            }
        }).build();
    }

    static ToolSpec progress() {
        return ToolSpec.builder("progress").handler((ctx, args) -> {
            ctx.progress(1, 3.0, "one");
            ctx.progress(1, 3.0, "one again");
            ctx.progress(0.5, 3.0, "backwards");
            ctx.progress(2, 3.0, null);
            ctx.progress(2.5, null, "fraction");
            ctx.progress(3, 3.0, "done");
            return CallToolResult.text("ok");
        }).build();
    }

    static ToolSpec logging() {
        return ToolSpec.builder("log").handler((ctx, args) -> {
            for (LoggingLevel level : LoggingLevel.values()) {
                ctx.log(level, "test-logger", Json.object().put("level", level.wire()));
            }
            return CallToolResult.text("logged");
        }).build();
    }

    /** Asks for a name, then for a confirmation, and greets. */
    static ToolSpec greeter() {
        ObjectNode nameSchema = (ObjectNode) Json.mapper().readTree(
                "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}},\"required\":[\"name\"]}");
        ObjectNode confirmSchema = (ObjectNode) Json.mapper().readTree(
                "{\"type\":\"object\",\"properties\":{\"ok\":{\"type\":\"boolean\"}},\"required\":[\"ok\"]}");
        ObjectNode input = (ObjectNode) Json.mapper().readTree(
                "{\"type\":\"object\",\"properties\":{\"greeting\":{\"type\":\"string\"}}}");
        return ToolSpec.builder("greet").inputSchema(input).handler((ctx, args) -> {
            var name = ctx.elicit("Your name?", nameSchema);
            if (!name.accepted()) {
                return CallToolResult.text("no name");
            }
            var confirm = ctx.elicit("Greet " + name.content().get("name").stringValue() + "?", confirmSchema);
            String greeting = args.path("greeting").asString("Hello");
            return CallToolResult.text(confirm.accepted() && confirm.content().get("ok").booleanValue()
                    ? greeting + ", " + name.content().get("name").stringValue() : "not greeting");
        }).build();
    }

    static ResourceSpec staticText() {
        return ResourceSpec.builder("test://static-text", "static-text").mimeType("text/plain").text("static").build();
    }

    static ResourceSpec watched() {
        return ResourceSpec.builder("test://watched", "watched").text("w").build();
    }

    static ResourceTemplateSpec template() {
        return ResourceTemplateSpec.builder("test://template/{id}/data", "template").mimeType("application/json")
                .handler((ctx, uri, vars) -> ReadResourceResult.of(
                        ResourceContents.text(uri, "application/json", "{\"id\":\"" + vars.get("id") + "\"}")))
                .complete("id", (value, context) -> java.util.List.of("1", "12", "123").stream()
                        .filter(v -> v.startsWith(value)).toList())
                .build();
    }

    static PromptSpec prompt() {
        return PromptSpec.builder("review").description("Review code").argument("code", "The code", true)
                .argument("language", null, false)
                .complete("language", (value, context) -> java.util.List.of("java", "javascript", "python").stream()
                        .filter(v -> v.startsWith(value)).toList())
                .handler((ctx, a) -> GetPromptResult.of("Review", PromptMessage.user(Content.text("Review: " + a.get("code")))))
                .build();
    }

    McpServer.Builder server() {
        return McpServer.builder().info("fixture", "1.2.3")
                .tool(echo()).tool(add()).tool(failing()).tool(crashing()).tool(sleeping()).tool(polling())
                .tool(progress()).tool(logging()).tool(greeter())
                .resource(staticText()).resource(watched()).resourceTemplate(template()).prompt(prompt());
    }

    static ObjectNode call(String tool, String argumentsJson) {
        ObjectNode p = Json.object();
        p.put("name", tool);
        if (argumentsJson != null) {
            p.set("arguments", Json.mapper().readTree(argumentsJson));
        }
        return p;
    }
}
