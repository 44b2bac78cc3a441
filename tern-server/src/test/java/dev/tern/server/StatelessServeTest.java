package dev.tern.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.tern.protocol.ErrorCodes;
import dev.tern.protocol.Json;
import dev.tern.protocol.JsonRpcFailure;
import dev.tern.protocol.JsonRpcMessage;
import dev.tern.protocol.JsonRpcNotification;
import dev.tern.protocol.JsonRpcRequest;
import dev.tern.protocol.JsonRpcResult;
import dev.tern.protocol.McpMeta;
import dev.tern.protocol.RequestId;
import dev.tern.protocol.model.CallToolResult;

import tools.jackson.databind.node.ObjectNode;

class StatelessServeTest {

    /** What the server sent for one request, in order. */
    private static final class Recorder implements Outbound {
        final List<JsonRpcMessage> sent = new CopyOnWriteArrayList<>();

        @Override
        public void send(JsonRpcMessage message, RequestId relatedTo) {
            sent.add(message);
        }

        List<String> kinds() {
            return sent.stream().map(m -> switch (m) {
                case JsonRpcNotification n -> n.method();
                case JsonRpcResult r -> "result";
                case JsonRpcFailure f -> "error " + f.error().code();
                default -> m.toString();
            }).toList();
        }
    }

    private static JsonRpcRequest modern(long id, String method, ObjectNode params) {
        ObjectNode p = params == null ? Json.object() : params;
        ObjectNode meta = p.putObject(McpMeta.KEY);
        meta.put(McpMeta.PROTOCOL_VERSION, "2026-07-28");
        meta.putObject(McpMeta.CLIENT_CAPABILITIES);
        return new JsonRpcRequest(RequestId.of(id), method, p);
    }

    private static void await(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() < deadline).as("condition met within 10 s").isTrue();
            Thread.sleep(5);
        }
    }

    @Test
    void aStatelessRequestIsAnsweredWithoutOpeningAChannel() {
        try (McpServer server = McpServer.builder().tool(ToolSpec.builder("t").handler((c, a) -> null).build()).build()) {
            Recorder out = new Recorder();
            server.serve(modern(1, "tools/list", null), out);
            assertThat(out.kinds()).as("answered on the calling thread").containsExactly("result");
            JsonRpcResult result = (JsonRpcResult) out.sent.get(0);
            assertThat(result.result().path("resultType").asString()).isEqualTo("complete");
            assertThat(result.result().path("tools").size()).isEqualTo(1);
            assertThat(server.channelCount()).as("no channel for a stateless request").isZero();
        }
    }

    @Test
    void aRequestThatNamesNoRevisionIsRefusedAsNotInitialized() {
        try (McpServer server = McpServer.builder().build()) {
            Recorder out = new Recorder();
            server.serve(new JsonRpcRequest(RequestId.of(1), "tools/list", Json.object()), out);
            assertThat(out.kinds()).containsExactly("error " + ErrorCodes.INVALID_REQUEST);
        }
    }

    @Test
    void aListenServedOnItsOwnHearsOfChangesUntilItIsClosedThenEndsWithItsResult() throws Exception {
        try (McpServer server = McpServer.builder().listChangedDelay(java.time.Duration.ofMillis(1)).build()) {
            Recorder out = new Recorder();
            ObjectNode params = Json.object();
            params.putObject("notifications").put("toolsListChanged", true);
            StatelessRequest listen = server.serve(modern(7, "subscriptions/listen", params), out);
            assertThat(out.kinds()).containsExactly("notifications/subscriptions/acknowledged");
            server.addTool(ToolSpec.builder("fresh").handler((c, a) -> null).build());
            await(() -> out.sent.size() == 2);
            JsonRpcNotification changed = (JsonRpcNotification) out.sent.get(1);
            assertThat(changed.method()).isEqualTo("notifications/tools/list_changed");
            assertThat(changed.params().path(McpMeta.KEY).path(McpMeta.SUBSCRIPTION_ID).asLong()).isEqualTo(7);
            listen.close();
            assertThat(out.kinds()).as("the final result ends the listen").containsExactly(
                    "notifications/subscriptions/acknowledged", "notifications/tools/list_changed", "result");
            server.addTool(ToolSpec.builder("later").handler((c, a) -> null).build());
            Thread.sleep(100);
            assertThat(out.sent).as("nothing after the end").hasSize(3);
        }
    }

    @Test
    void closingARunningRequestCancelsItsHandlerAndSendsNothingMore() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch sawCancel = new CountDownLatch(1);
        ToolSpec wait = ToolSpec.builder("wait").handler((ctx, a) -> {
            started.countDown();
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                if (ctx.cancellation().isCancelled()) {
                    sawCancel.countDown();
                }
            }
            return CallToolResult.text("late");
        }).build();
        try (McpServer server = McpServer.builder().tool(wait).build()) {
            Recorder out = new Recorder();
            ObjectNode params = Json.object();
            params.put("name", "wait");
            StatelessRequest call = server.serve(modern(3, "tools/call", params), out);
            assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
            call.close();
            assertThat(sawCancel.await(10, TimeUnit.SECONDS)).as("the handler is interrupted and sees the cancellation")
                    .isTrue();
            Thread.sleep(100);
            assertThat(out.sent).as("no response for a request whose client is gone").isEmpty();
        }
    }
}
