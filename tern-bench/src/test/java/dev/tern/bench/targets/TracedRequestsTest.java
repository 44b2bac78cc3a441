package dev.tern.bench.targets;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;

import dev.tern.bench.Operation;
import dev.tern.bench.Outcome;
import dev.tern.client.ClientTracer;
import dev.tern.client.McpReply;

import org.junit.jupiter.api.Test;

import tools.jackson.databind.JsonNode;

class TracedRequestsTest {
    private static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    /** A tracer that writes one context and keeps what each call was started and ended with. */
    private static final class Recording implements ClientTracer {
        final List<String> started = new ArrayList<>();
        final List<Boolean> overHttp = new ArrayList<>();
        final List<Object> ended = new ArrayList<>();

        @Override
        public Call start(String method, String target, boolean http) {
            started.add(method + " " + target);
            overHttp.add(http);
            return new Call() {
                @Override
                public void inject(BiConsumer<String, String> meta) {
                    meta.accept("traceparent", TRACEPARENT);
                }

                @Override
                public void end(McpReply reply, Throwable failure) {
                    ended.add(reply != null ? reply : failure);
                }
            };
        }
    }

    @Test
    void theContextJoinsTheModernMetaAndKeepsItsVersion() {
        Recording tracer = new Recording();
        List<String> sent = new ArrayList<>();
        Operation call = Operation.callTool("get_user", "{\"id\":\"42\"}");

        TracedRequests.send(tracer, true, call, new McpWire(true).request(3, call), body -> {
            sent.add(body);
            return CompletableFuture.completedFuture(Outcome.ok());
        });

        JsonNode r = McpWire.JSON.readTree(sent.get(0));
        assertThat(r.path("id").asLong()).isEqualTo(3);
        assertThat(r.path("params").path("arguments").path("id").asString()).isEqualTo("42");
        JsonNode meta = r.path("params").path("_meta");
        assertThat(meta.path("traceparent").asString()).isEqualTo(TRACEPARENT);
        assertThat(meta.path("io.modelcontextprotocol/protocolVersion").asString()).isEqualTo("2026-07-28");
        assertThat(tracer.started).containsExactly("tools/call get_user");
        assertThat(tracer.overHttp).containsExactly(true);
        assertThat(tracer.ended).singleElement().isInstanceOfSatisfying(McpReply.class,
                reply -> assertThat(reply.isError()).isFalse());
    }

    @Test
    void aLegacyRequestWithoutParamsGetsThemForItsMeta() {
        Recording tracer = new Recording();
        List<String> sent = new ArrayList<>();

        TracedRequests.send(tracer, false, Operation.listTools(), new McpWire(false).request(1, Operation.listTools()),
                body -> {
                    sent.add(body);
                    return CompletableFuture.completedFuture(Outcome.failed(Outcome.Status.JSONRPC_ERROR,
                            "-32601 Method not found: tools/list"));
                });

        JsonNode r = McpWire.JSON.readTree(sent.get(0));
        assertThat(r.path("params").path("_meta").path("traceparent").asString()).isEqualTo(TRACEPARENT);
        assertThat(r.path("params").path("_meta").size()).isEqualTo(1);
        assertThat(tracer.started).containsExactly("tools/list null");
        assertThat(tracer.overHttp).as("sent over stdio").containsExactly(false);
        assertThat(tracer.ended).singleElement().isInstanceOfSatisfying(McpReply.class, reply -> {
            assertThat(reply.error().code()).isEqualTo(-32601);
            assertThat(reply.error().message()).isEqualTo("Method not found: tools/list");
        });
    }

    @Test
    void aToolErrorATimeoutAndAFailureEndTheirSpansAsSuch() {
        Recording tracer = new Recording();
        Operation call = Operation.callTool("get_user", "{}");
        String body = new McpWire(true).request(1, call);
        for (Outcome outcome : List.of(Outcome.failed(Outcome.Status.TOOL_ERROR, "no such user"),
                Outcome.failed(Outcome.Status.TIMEOUT, "10 s"), Outcome.failed(Outcome.Status.HTTP_STATUS, "HTTP 503"))) {
            TracedRequests.send(tracer, true, call, body, b -> CompletableFuture.completedFuture(outcome));
        }
        RuntimeException refused = new IllegalStateException("connection refused");
        TracedRequests.send(tracer, true, call, body, b -> CompletableFuture.failedFuture(refused));

        assertThat(tracer.ended).hasSize(4);
        assertThat(tracer.ended.get(0)).isInstanceOfSatisfying(McpReply.class,
                reply -> assertThat(reply.result().path("isError").asBoolean()).isTrue());
        assertThat(tracer.ended.get(1)).isInstanceOf(java.util.concurrent.TimeoutException.class);
        assertThat(tracer.ended.get(2)).isInstanceOfSatisfying(Throwable.class,
                t -> assertThat(t.getMessage()).isEqualTo("HTTP 503"));
        assertThat(tracer.ended.get(3)).isSameAs(refused);
    }
}
