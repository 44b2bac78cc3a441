package dev.tern.transport.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.tern.protocol.model.CallToolResult;
import dev.tern.server.McpServer;
import dev.tern.server.ToolSpec;

/**
 * Non-blocking tools and routes run on the connection's event loop; the others on virtual threads of their own.
 * Both answer the same, over HTTP/1.1 and h2c, statelessly and in a legacy session.
 */
class NonBlockingOverHttpTest {
    private final AtomicReference<Thread> quickTool = new AtomicReference<>();
    private final AtomicReference<Thread> plainTool = new AtomicReference<>();
    private final AtomicReference<Thread> quickRoute = new AtomicReference<>();
    private final AtomicReference<Thread> plainRoute = new AtomicReference<>();
    private McpServer server;
    private HttpServerTransport transport;

    @BeforeEach
    void start() throws InterruptedException {
        server = McpServer.builder().info("t", "1")
                .tool(ToolSpec.builder("quick").nonBlocking(true).handler((ctx, args) -> {
                    quickTool.set(Thread.currentThread());
                    return CallToolResult.text("quick");
                }).build())
                .tool(ToolSpec.builder("plain").handler((ctx, args) -> {
                    plainTool.set(Thread.currentThread());
                    return CallToolResult.text("plain");
                }).build())
                .build();
        transport = HttpServerTransport.builder(server).host("127.0.0.1").port(0)
                .nonBlockingRoute("GET", "/quick/{id}", "A route that never blocks.", request -> {
                    quickRoute.set(Thread.currentThread());
                    return RouteResponse.json(Map.of("id", request.pathVariable("id")));
                })
                .route("GET", "/plain/{id}", "A route that may block.", request -> {
                    plainRoute.set(Thread.currentThread());
                    return RouteResponse.json(Map.of("id", request.pathVariable("id")));
                })
                .build().start();
    }

    @AfterEach
    void stop() {
        transport.close();
        server.close();
    }

    @Test
    void aNonBlockingToolRunsOnTheEventLoopAndAnswersAsAnyOther() {
        for (HttpClient.Version version : List.of(HttpClient.Version.HTTP_1_1, HttpClient.Version.HTTP_2)) {
            try (Mcp mcp = new Mcp(transport, version)) {
                Mcp.Reply quick = mcp.modern("tools/call", Mcp.toolCall("quick", null));
                Mcp.Reply plain = mcp.modern("tools/call", Mcp.toolCall("plain", null));

                assertThat(quick.status()).isEqualTo(200);
                assertThat(quick.messages().getFirst().at("/result/content/0/text").asString()).isEqualTo("quick");
                assertThat(plain.messages().getFirst().at("/result/content/0/text").asString()).isEqualTo("plain");
                assertThat(quickTool.get().isVirtual()).as("%s", quickTool.get()).isFalse();
                assertThat(quickTool.get()).as("an event loop").isInstanceOf(io.netty.util.concurrent.FastThreadLocalThread.class);
                assertThat(plainTool.get().isVirtual()).as("%s", plainTool.get()).isTrue();
            }
        }
    }

    @Test
    void inALegacySessionTooANonBlockingToolRunsOnTheEventLoop() {
        try (Mcp mcp = new Mcp(transport, HttpClient.Version.HTTP_1_1)) {
            String session = mcp.initialize(Mcp.LEGACY);
            Mcp.Reply quick = mcp.legacy(session, 1, "tools/call", Mcp.toolCall("quick", null));
            Mcp.Reply plain = mcp.legacy(session, 2, "tools/call", Mcp.toolCall("plain", null));

            assertThat(quick.messages().getFirst().at("/result/content/0/text").asString()).isEqualTo("quick");
            assertThat(plain.messages().getFirst().at("/result/content/0/text").asString()).isEqualTo("plain");
            assertThat(quickTool.get()).as("an event loop").isInstanceOf(io.netty.util.concurrent.FastThreadLocalThread.class);
            assertThat(plainTool.get().isVirtual()).as("%s", plainTool.get()).isTrue();
        }
    }

    @Test
    void aNonBlockingRouteRunsOnTheEventLoopAndAnswersAsAnyOther() {
        try (Mcp mcp = new Mcp(transport, HttpClient.Version.HTTP_1_1)) {
            URI base = mcp.uri;
            Mcp.Reply quick = mcp.get(base.resolve("/quick/7"), Map.of());
            Mcp.Reply plain = mcp.get(base.resolve("/plain/7"), Map.of());

            assertThat(quick.status()).isEqualTo(200);
            assertThat(quick.body()).isEqualTo(plain.body()).isEqualTo("{\"id\":\"7\"}");
            assertThat(quickRoute.get().isVirtual()).as("%s", quickRoute.get()).isFalse();
            assertThat(quickRoute.get()).as("an event loop").isInstanceOf(io.netty.util.concurrent.FastThreadLocalThread.class);
            assertThat(plainRoute.get().isVirtual()).as("%s", plainRoute.get()).isTrue();
        }
    }
}
