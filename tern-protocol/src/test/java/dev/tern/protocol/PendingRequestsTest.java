package dev.tern.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

class PendingRequestsTest {
    private static final Duration LONG = Duration.ofMinutes(5);

    private final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);
    private final PendingRequests pending;

    PendingRequestsTest() {
        scheduler.setRemoveOnCancelPolicy(true);
        pending = new PendingRequests(scheduler);
    }

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    @Test
    void idsAreUniqueIntegers() {
        Set<RequestId> ids = new HashSet<>();
        for (int i = 0; i < 100; i++) {
            RequestId id = pending.register(LONG).id();
            assertThat(id).isInstanceOf(RequestId.NumberId.class);
            assertThat(ids.add(id)).isTrue();
        }
        assertThat(pending.size()).isEqualTo(100);
    }

    @Test
    void aResultCompletesTheMatchingRequest() throws Exception {
        PendingRequests.Outgoing a = pending.register(LONG);
        PendingRequests.Outgoing b = pending.register(LONG);
        ObjectNode result = Json.object().put("action", "accept");
        assertThat(pending.complete(new JsonRpcResult(b.id(), result))).isTrue();
        assertThat(b.response().get(1, TimeUnit.SECONDS)).isEqualTo(result);
        assertThat(a.response()).isNotDone();
        assertThat(pending.size()).isEqualTo(1);
    }

    @Test
    void anErrorResponseFailsTheRequestWithItsCodeMessageAndData() {
        PendingRequests.Outgoing o = pending.register(LONG);
        ObjectNode data = Json.object().put("why", "no");
        assertThat(pending.complete(new JsonRpcFailure(o.id(), new JsonRpcError(-32601, "Method not found", data)))).isTrue();
        assertThatThrownBy(() -> o.response().get(1, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOfSatisfying(McpException.class, e -> {
                    assertThat(e.code()).isEqualTo(-32601);
                    assertThat(e.getMessage()).isEqualTo("Method not found");
                    assertThat(e.data()).isEqualTo(data);
                });
        assertThat(pending.size()).isZero();
    }

    @Test
    void aResponseForAnUnknownIdIsReported() {
        pending.register(LONG);
        assertThat(pending.complete(new JsonRpcResult(RequestId.of(999), Json.object()))).isFalse();
        assertThat(pending.complete(new JsonRpcFailure(null, JsonRpcError.of(-32700, "Parse error")))).isFalse();
        assertThat(pending.size()).isEqualTo(1);
    }

    @Test
    void aStringIdDoesNotMatchTheIntegerIdWeSent() {
        PendingRequests.Outgoing o = pending.register(LONG);
        long n = ((RequestId.NumberId) o.id()).value();
        assertThat(pending.complete(new JsonRpcResult(RequestId.of(Long.toString(n)), Json.object()))).isFalse();
        assertThat(o.response()).isNotDone();
    }

    @Test
    void aSecondResponseForTheSameIdIsIgnored() throws Exception {
        PendingRequests.Outgoing o = pending.register(LONG);
        assertThat(pending.complete(new JsonRpcResult(o.id(), Json.object().put("n", 1)))).isTrue();
        assertThat(pending.complete(new JsonRpcResult(o.id(), Json.object().put("n", 2)))).isFalse();
        assertThat(o.response().get().get("n").intValue()).isEqualTo(1);
    }

    @Test
    void noResponseInTimeFailsWithATimeout() {
        PendingRequests.Outgoing o = pending.register(Duration.ofMillis(1));
        assertThatThrownBy(() -> o.response().get(30, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(TimeoutException.class);
        assertThat(pending.size()).isZero();
        assertThat(pending.complete(new JsonRpcResult(o.id(), Json.object()))).isFalse();
    }

    @Test
    void aTimeoutThatFiresAtOnceStillFailsTheRequest() {
        // the timer may run before register() returns; the request must time out all the same
        for (int i = 0; i < 200; i++) {
            PendingRequests.Outgoing o = pending.register(Duration.ZERO);
            assertThatThrownBy(() -> o.response().get(30, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOf(TimeoutException.class);
        }
        assertThat(pending.size()).isZero();
    }

    @Test
    void answeredRequestsCancelTheirTimer() throws Exception {
        PendingRequests.Outgoing o = pending.register(LONG);
        assertThat(scheduler.getQueue()).hasSize(1);
        pending.complete(new JsonRpcResult(o.id(), Json.object()));
        o.response().get();
        assertThat(scheduler.getQueue()).isEmpty();
    }

    @Test
    void aRequestTheCallerCancelsIsForgotten() {
        PendingRequests.Outgoing o = pending.register(LONG);
        o.response().cancel(false);
        assertThat(pending.size()).isZero();
        assertThat(scheduler.getQueue()).isEmpty();
        assertThat(pending.complete(new JsonRpcResult(o.id(), Json.object()))).isFalse();
    }

    @Test
    void failAllFailsEveryWaitingRequest() {
        PendingRequests.Outgoing a = pending.register(LONG);
        PendingRequests.Outgoing b = pending.register(LONG);
        CancellationException cause = new CancellationException("connection closed");
        pending.failAll(cause);
        for (PendingRequests.Outgoing o : new PendingRequests.Outgoing[] {a, b}) {
            assertThat(o.response()).isCompletedExceptionally();
            assertThatThrownBy(() -> o.response().join()).hasCause(cause);
        }
        assertThat(pending.size()).isZero();
        assertThat(scheduler.getQueue()).isEmpty();
        // registering again still works
        PendingRequests.Outgoing c = pending.register(LONG);
        assertThat(c.id()).isNotIn(a.id(), b.id());
        assertThat(pending.size()).isEqualTo(1);
    }

    @Test
    void resultMayBeAnyJsonValue() throws Exception {
        PendingRequests.Outgoing o = pending.register(LONG);
        JsonNode empty = Json.object();
        pending.complete(new JsonRpcResult(o.id(), empty));
        assertThat(o.response().get()).isEqualTo(empty);
    }
}
