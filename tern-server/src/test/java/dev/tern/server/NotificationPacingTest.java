package dev.tern.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.tern.protocol.Json;
import dev.tern.protocol.JsonRpcMessage;
import dev.tern.protocol.JsonRpcNotification;
import dev.tern.protocol.JsonRpcRequest;
import dev.tern.protocol.JsonRpcResponse;
import dev.tern.protocol.McpMeta;
import dev.tern.protocol.RequestId;
import dev.tern.protocol.model.CallToolResult;
import dev.tern.protocol.model.LoggingLevel;

import tools.jackson.databind.node.ObjectNode;

/** A handler reporting in a tight loop sends a slow client no more than the per-request rates allow. */
class NotificationPacingTest {

    /** Everything sent for one call of {@code tool}, the response last. */
    private static List<JsonRpcMessage> call(McpServer server, String tool) throws Exception {
        return call(server, tool, new CopyOnWriteArrayList<>());
    }

    /** As above, with when each message was sent ({@link System#nanoTime()}) in {@code sentAt}. */
    private static List<JsonRpcMessage> call(McpServer server, String tool, List<Long> sentAt) throws Exception {
        ObjectNode params = Json.object().put("name", tool);
        ObjectNode meta = params.putObject(McpMeta.KEY);
        meta.put(McpMeta.PROTOCOL_VERSION, "2026-07-28");
        meta.putObject(McpMeta.CLIENT_CAPABILITIES);
        meta.put(McpMeta.PROGRESS_TOKEN, "p");
        meta.put(McpMeta.LOG_LEVEL, "debug");
        List<JsonRpcMessage> sent = new CopyOnWriteArrayList<>();
        CompletableFuture<Void> answered = new CompletableFuture<>();
        server.serve(new JsonRpcRequest(RequestId.of(1), "tools/call", params), (message, relatedTo) -> {
            sentAt.add(System.nanoTime());
            sent.add(message);
            if (message instanceof JsonRpcResponse) {
                answered.complete(null);
            }
        });
        answered.get(20, TimeUnit.SECONDS);
        return sent;
    }

    private static List<JsonRpcNotification> notifications(List<JsonRpcMessage> sent, String method) {
        return sent.stream().filter(m -> m instanceof JsonRpcNotification n && n.method().equals(method))
                .map(JsonRpcNotification.class::cast).toList();
    }

    @Test
    void progressBeyondTheRateIsCoalescedAndTheLatestArrivesBeforeTheResponse() throws Exception {
        ToolSpec busy = ToolSpec.builder("busy").handler((ctx, args) -> {
            for (int i = 1; i <= 10_000; i++) {
                ctx.progress(i, 10_000.0, null);
            }
            return CallToolResult.text("done");
        }).build();
        try (McpServer server = McpServer.builder().notificationRates(20, 100).tool(busy).build()) {
            List<JsonRpcMessage> sent = call(server, "busy");
            List<Double> values = notifications(sent, "notifications/progress").stream()
                    .map(n -> n.params().path("progress").asDouble()).toList();
            assertThat(values.size()).as("a burst of 20, then what the rate allows while the loop runs, then the latest")
                    .isBetween(2, 60);
            assertThat(values).as("still increasing").isSorted().doesNotHaveDuplicates();
            assertThat(values.getLast()).isEqualTo(10_000.0);
            assertThat(sent.getLast()).isInstanceOf(JsonRpcResponse.class);
        }
    }

    @Test
    void heldProgressGoesOutWhenTheRateAllowsWhileTheHandlerStillRuns() throws Exception {
        List<Long> sentAt = new CopyOnWriteArrayList<>();
        long[] returnedAt = new long[1];
        ToolSpec pausing = ToolSpec.builder("pausing").handler((ctx, args) -> {
            for (int i = 1; i <= 30; i++) {
                ctx.progress(i, null, null);
            }
            Thread.sleep(500);
            returnedAt[0] = System.nanoTime();
            return CallToolResult.text("done");
        }).build();
        try (McpServer server = McpServer.builder().notificationRates(20, 100).tool(pausing).build()) {
            List<JsonRpcMessage> sent = call(server, "pausing", sentAt);
            List<JsonRpcNotification> progress = notifications(sent, "notifications/progress");
            assertThat(progress).as("a burst of 20, then the latest of the rest").hasSize(21);
            assertThat(progress.getLast().params().path("progress").asInt()).isEqualTo(30);
            assertThat(sentAt.get(sent.indexOf(progress.getLast())))
                    .as("sent during the handler's pause, not held until the response").isLessThan(returnedAt[0]);
        }
    }

    @Test
    void logMessagesBeyondTheRateAreDroppedAndCounted() throws Exception {
        ToolSpec chatty = ToolSpec.builder("chatty").handler((ctx, args) -> {
            for (int i = 0; i < 5_000; i++) {
                ctx.log(LoggingLevel.INFO, "loop", "message " + i);
            }
            return CallToolResult.text("done");
        }).build();
        try (McpServer server = McpServer.builder().notificationRates(20, 100).tool(chatty).build()) {
            List<JsonRpcMessage> sent = call(server, "chatty");
            List<JsonRpcNotification> logs = notifications(sent, "notifications/message");
            long delivered = logs.stream().filter(n -> n.params().path("logger").asString().equals("loop")).count();
            long dropped = logs.stream().filter(n -> n.params().path("logger").asString().equals(NotificationPacer.LOGGER))
                    .mapToLong(n -> Long.parseLong(n.params().path("data").asString().split(" ")[0])).sum();
            assertThat(delivered).isBetween(100L, 600L);
            assertThat(delivered + dropped).as("every message is either sent or counted").isEqualTo(5_000);
            assertThat(logs.getLast().params().path("logger").asString()).isEqualTo(NotificationPacer.LOGGER);
            assertThat(logs.getLast().params().path("level").asString()).isEqualTo("warning");
        }
    }

    @Test
    void aFewNotificationsPassUntouched() throws Exception {
        ToolSpec few = ToolSpec.builder("few").handler((ctx, args) -> {
            for (int i = 1; i <= 5; i++) {
                ctx.progress(i, null, null);
                ctx.log(LoggingLevel.INFO, "few", i);
            }
            return CallToolResult.text("done");
        }).build();
        try (McpServer server = McpServer.builder().tool(few).build()) {
            List<JsonRpcMessage> sent = call(server, "few");
            assertThat(notifications(sent, "notifications/progress")).hasSize(5);
            assertThat(notifications(sent, "notifications/message")).hasSize(5);
        }
    }
}
