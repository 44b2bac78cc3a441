package dev.tern.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.junit.jupiter.api.Test;

import dev.tern.protocol.Json;
import dev.tern.protocol.JsonRpcMessage;
import dev.tern.protocol.JsonRpcNotification;
import dev.tern.protocol.JsonRpcRequest;
import dev.tern.protocol.McpMeta;
import dev.tern.protocol.RequestId;

import tools.jackson.databind.node.ObjectNode;

/** A server publishes its own changes to the other nodes and delivers theirs to its clients, never back again. */
class NotificationBusTest {

    /** A bus to nodes the test plays: what the server published, and a way to hand it what they published. */
    private static final class TwoNodeBus implements NotificationBus {
        final List<Notice> published = new CopyOnWriteArrayList<>();
        final List<Consumer<Notice>> receivers = new CopyOnWriteArrayList<>();

        @Override
        public void publish(Notice notice) {
            published.add(notice);
        }

        @Override
        public void subscribe(Consumer<Notice> receiver) {
            receivers.add(receiver);
        }

        void fromOtherNode(Notice notice) {
            receivers.forEach(r -> r.accept(notice));
        }
    }

    private static final class Recorder implements Outbound {
        final List<JsonRpcMessage> sent = new CopyOnWriteArrayList<>();

        @Override
        public void send(JsonRpcMessage message, RequestId relatedTo) {
            sent.add(message);
        }

        List<String> methods() {
            return sent.stream().map(m -> m instanceof JsonRpcNotification n ? n.method() : "other").toList();
        }
    }

    @Test
    void aServerPublishesItsChangesOnceCoalescedAndDeliversThemToItsOwnClients() throws Exception {
        TwoNodeBus bus = new TwoNodeBus();
        try (McpServer server = McpServer.builder().notificationBus(bus).listChangedDelay(Duration.ofMillis(20))
                .build()) {
            Recorder out = listen(server);
            server.addTool(ToolSpec.builder("one").handler((c, a) -> null).build());
            server.addTool(ToolSpec.builder("two").handler((c, a) -> null).build());
            server.notifyResourceUpdated("mem://doc");
            await(() -> bus.published.size() == 2 && out.sent.size() == 3);
            Thread.sleep(100);
            assertThat(bus.published).containsExactlyInAnyOrder(new NotificationBus.ListChanged("tools"),
                    new NotificationBus.ResourceUpdated("mem://doc"));
            assertThat(out.methods()).containsExactlyInAnyOrder("notifications/subscriptions/acknowledged",
                    "notifications/tools/list_changed", "notifications/resources/updated");
        }
    }

    @Test
    void whatAnotherNodePublishedReachesThisNodesClientsAndIsNotPublishedAgain() throws Exception {
        TwoNodeBus bus = new TwoNodeBus();
        try (McpServer server = McpServer.builder().notificationBus(bus).listChangedDelay(Duration.ofMillis(20))
                .build()) {
            Recorder out = listen(server);
            long revision = server.featuresRevision();
            bus.fromOtherNode(new NotificationBus.ListChanged("tools"));
            bus.fromOtherNode(new NotificationBus.ResourceUpdated("mem://doc"));
            bus.fromOtherNode(new NotificationBus.ListChanged("a list of a newer node"));
            bus.fromOtherNode(new NotificationBus.SessionChanged("s"));
            await(() -> out.sent.size() == 3);
            Thread.sleep(100);
            assertThat(out.methods()).containsExactly("notifications/subscriptions/acknowledged",
                    "notifications/resources/updated", "notifications/tools/list_changed");
            assertThat(bus.published).as("nothing goes back on the bus").isEmpty();
            assertThat(server.featuresRevision()).as("this node's features did not change").isEqualTo(revision);
        }
    }

    @Test
    void aClosedServerIgnoresWhatOtherNodesPublish() throws Exception {
        TwoNodeBus bus = new TwoNodeBus();
        McpServer server = McpServer.builder().notificationBus(bus).build();
        Recorder out = listen(server);
        server.close();
        int sent = out.sent.size();
        bus.fromOtherNode(new NotificationBus.ResourceUpdated("mem://doc"));
        Thread.sleep(100);
        assertThat(out.sent).hasSize(sent);
    }

    @Test
    void aSingleNodeServerHasTheLocalBus() {
        try (McpServer server = McpServer.builder().build()) {
            assertThat(server.notificationBus()).isSameAs(NotificationBus.LOCAL);
        }
    }

    private static Recorder listen(McpServer server) {
        Recorder out = new Recorder();
        ObjectNode params = Json.object();
        ObjectNode wanted = params.putObject("notifications").put("toolsListChanged", true);
        wanted.putArray("resourceSubscriptions").add("mem://doc");
        ObjectNode meta = params.putObject(McpMeta.KEY);
        meta.put(McpMeta.PROTOCOL_VERSION, "2026-07-28");
        meta.putObject(McpMeta.CLIENT_CAPABILITIES);
        server.serve(new JsonRpcRequest(RequestId.of(1), "subscriptions/listen", params), out);
        assertThat(out.methods()).containsExactly("notifications/subscriptions/acknowledged");
        return out;
    }

    private static void await(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() < deadline).as("condition met within 10 s").isTrue();
            Thread.sleep(5);
        }
    }
}
