package dev.tern.client.http;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.tern.client.TestServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The HTTP engine against Tern's own HTTP transport: HTTP/1.1, h2c and TLS h2, pooling, SSE and TLS resumption. */
class HttpClientEngineTest {
    private static final byte[] TOOLS_LIST = ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"_meta\":"
            + "{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
            + "\"io.modelcontextprotocol/clientCapabilities\":{}}}}").getBytes(StandardCharsets.UTF_8);

    private static TestServers.Running clear;
    private static TestServers.Running tls;

    @BeforeAll
    static void start() throws InterruptedException {
        clear = TestServers.http(b -> b);
        tls = TestServers.http(b -> b.tls(t -> t.selfSigned()));
    }

    @AfterAll
    static void stop() {
        if (clear != null) {
            clear.close();
        }
        if (tls != null) {
            tls.close();
        }
    }

    private static HttpCall toolsList() {
        return HttpCall.post(null, "application/json", TOOLS_LIST)
                .header("accept", "application/json, text/event-stream")
                .header("mcp-protocol-version", "2026-07-28")
                .header("mcp-method", "tools/list");
    }

    @Test
    void http11PoolsKeepAliveConnectionsUpToItsLimit() {
        List<ConnectionInfo> opened = new CopyOnWriteArrayList<>();
        try (HttpClientEngine http = HttpClientEngine.builder(URI.create("http://127.0.0.1:" + clear.port() + "/mcp"))
                .maxConnections(4).connectionListener(opened::add).build()) {
            List<CompletableFuture<HttpReply>> replies = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                replies.add(http.send(toolsList()));
            }
            for (CompletableFuture<HttpReply> f : replies) {
                HttpReply reply = f.join();
                assertThat(reply.status()).isEqualTo(200);
                assertThat(reply.protocol()).isEqualTo("http/1.1");
                assertThat(reply.bodyText()).contains("get_user");
                assertThat(reply.firstByteNanos()).isGreaterThanOrEqualTo(reply.sentNanos());
                assertThat(reply.completeNanos()).isGreaterThanOrEqualTo(reply.firstByteNanos());
            }
            assertThat(opened).hasSizeBetween(1, 4).allSatisfy(c -> {
                assertThat(c.protocol()).isEqualTo("http/1.1");
                assertThat(c.tls()).isFalse();
            });
            HttpReply health = http.send(HttpCall.get("/health")).join();
            assertThat(health.status()).isEqualTo(200);
        }
    }

    @Test
    void h2cMultiplexesOnOneConnection() {
        List<ConnectionInfo> opened = new CopyOnWriteArrayList<>();
        try (HttpClientEngine http = HttpClientEngine.builder(URI.create("http://127.0.0.1:" + clear.port() + "/mcp"))
                .protocol(HttpProtocol.H2C).connectionListener(opened::add).build()) {
            List<CompletableFuture<HttpReply>> replies = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                replies.add(http.send(toolsList()));
            }
            for (CompletableFuture<HttpReply> f : replies) {
                HttpReply reply = f.join();
                assertThat(reply.status()).isEqualTo(200);
                assertThat(reply.protocol()).isEqualTo("h2c");
                assertThat(reply.header("content-type")).startsWith("application/json");
            }
            assertThat(opened).singleElement().satisfies(c -> assertThat(c.protocol()).isEqualTo("h2c"));
            assertThat(http.connections()).isEqualTo(1);
        }
    }

    @Test
    void h2cQueuesPastTheServersStreamLimitAndOpensMoreConnectionsWhenAllowed() throws InterruptedException {
        try (TestServers.Running limited = TestServers.http(b -> b.http2(h -> h.maxConcurrentStreams(4)))) {
            for (int maxConnections : new int[] {1, 3}) {
                List<ConnectionInfo> opened = new CopyOnWriteArrayList<>();
                try (HttpClientEngine http = HttpClientEngine.builder(
                                URI.create("http://127.0.0.1:" + limited.port() + "/mcp"))
                        .protocol(HttpProtocol.H2C).maxConnections(maxConnections).connectionListener(opened::add)
                        .build()) {
                    List<CompletableFuture<HttpReply>> replies = new ArrayList<>();
                    for (int i = 0; i < 100; i++) {
                        replies.add(http.send(toolsList()));
                    }
                    for (CompletableFuture<HttpReply> f : replies) {
                        assertThat(f.join().status()).isEqualTo(200);
                    }
                    assertThat(opened).hasSizeBetween(1, maxConnections);
                }
            }
        }
    }

    @Test
    void tlsH2ByAlpnAndTheSecondConnectionResumesTheSession() {
        ClientTls shared = ClientTls.builder().trustAll().build();
        URI uri = URI.create("https://127.0.0.1:" + tls.port() + "/mcp");
        List<ConnectionInfo> opened = new CopyOnWriteArrayList<>();
        for (int round = 0; round < 2; round++) {
            try (HttpClientEngine http = HttpClientEngine.builder(uri).protocol(HttpProtocol.H2).tls(shared)
                    .connectionListener(opened::add).build()) {
                HttpReply reply = http.send(toolsList()).join();
                assertThat(reply.status()).isEqualTo(200);
                assertThat(reply.protocol()).isEqualTo("h2");
            }
        }
        assertThat(opened).hasSize(2);
        assertThat(opened.get(0).tlsResumed()).isFalse();
        assertThat(opened.get(0).tlsHandshakeNanos()).isPositive();
        assertThat(opened.get(0).tlsVersion()).isEqualTo("TLSv1.3");
        assertThat(opened.get(1).tlsResumed()).as("second connection resumed from the shared cache").isTrue();
        assertThat(opened.get(1).protocol()).isEqualTo("h2");
    }

    @Test
    void tlsHttp11WhenAskedFor() {
        try (HttpClientEngine http = HttpClientEngine.builder(URI.create("https://127.0.0.1:" + tls.port() + "/mcp"))
                .tls(ClientTls.insecure()).build()) {
            HttpReply reply = http.send(toolsList()).join();
            assertThat(reply.status()).isEqualTo(200);
            assertThat(reply.protocol()).isEqualTo("http/1.1");
        }
    }

    @Test
    void anUntrustedCertificateFailsTheRequest() {
        try (HttpClientEngine http = HttpClientEngine.builder(URI.create("https://127.0.0.1:" + tls.port() + "/mcp"))
                .protocol(HttpProtocol.H2).tls(ClientTls.system()).build()) {
            assertThatThrownBy(() -> http.send(toolsList()).get(20, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(HttpClientException.class);
        }
    }

    @Test
    void sseRepliesAreParsedAsTheyArrive() {
        byte[] call = ("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"count\","
                + "\"arguments\":{\"steps\":3},\"_meta\":{\"progressToken\":\"t\","
                + "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                + "\"io.modelcontextprotocol/clientCapabilities\":{}}}}").getBytes(StandardCharsets.UTF_8);
        for (HttpProtocol protocol : List.of(HttpProtocol.HTTP_1_1, HttpProtocol.H2C)) {
            try (HttpClientEngine http = HttpClientEngine.builder(URI.create("http://127.0.0.1:" + clear.port() + "/mcp"))
                    .protocol(protocol).build()) {
                List<SseEvent> live = new CopyOnWriteArrayList<>();
                HttpReply reply = http.send(HttpCall.post(null, "application/json", call)
                        .header("accept", "application/json, text/event-stream")
                        .header("mcp-protocol-version", "2026-07-28").header("mcp-method", "tools/call")
                        .header("mcp-name", "count").onEvent(live::add)).join();
                assertThat(reply.contentType()).isEqualTo("text/event-stream");
                assertThat(reply.events()).hasSize(4).isEqualTo(live);
                assertThat(reply.events().get(0).data()).contains("notifications/progress");
                assertThat(reply.events().get(3).data()).contains("\"id\":2");
            }
        }
    }

    @Test
    void cancellingResetsTheHttp2StreamAndTheConnectionServesOn() throws Exception {
        byte[] slow = ("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\","
                + "\"arguments\":{\"millis\":10000},\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                + "\"io.modelcontextprotocol/clientCapabilities\":{}}}}").getBytes(StandardCharsets.UTF_8);
        List<ConnectionInfo> opened = new CopyOnWriteArrayList<>();
        try (HttpClientEngine http = HttpClientEngine.builder(URI.create("http://127.0.0.1:" + clear.port() + "/mcp"))
                .protocol(HttpProtocol.H2C).connectionListener(opened::add).build()) {
            CompletableFuture<HttpReply> pending = http.send(HttpCall.post(null, "application/json", slow)
                    .header("accept", "application/json, text/event-stream").header("mcp-protocol-version", "2026-07-28")
                    .header("mcp-method", "tools/call").header("mcp-name", "slow"));
            assertThat(http.send(toolsList()).get(20, TimeUnit.SECONDS).status()).isEqualTo(200);
            assertThat(pending.cancel(true)).isTrue();
            assertThat(pending).isCancelled();
            assertThat(http.send(toolsList()).get(20, TimeUnit.SECONDS).status()).isEqualTo(200);
            assertThat(opened).hasSize(1);
        }
    }

    @Test
    void connectsFromTheLocalAddressItIsGiven() throws Exception {
        try (java.net.ServerSocket server = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
                HttpClientEngine http = HttpClientEngine.builder(URI.create("http://127.0.0.1:" + server.getLocalPort()))
                        .localAddress(java.net.InetAddress.getByName("127.0.0.7")).build()) {
            CompletableFuture<HttpReply> pending = http.send(HttpCall.get("/from"));
            try (java.net.Socket accepted = server.accept()) {
                assertThat(accepted.getInetAddress().getHostAddress()).isEqualTo("127.0.0.7");
                accepted.getOutputStream().write(
                        "HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                assertThat(pending.get(10, TimeUnit.SECONDS).status()).isEqualTo(204);
            }
        }
    }

    @Test
    void cancellingAnHttp11RequestClosesItsConnection() throws Exception {
        try (java.net.ServerSocket silent = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
                HttpClientEngine http = HttpClientEngine.builder(URI.create("http://127.0.0.1:" + silent.getLocalPort()))
                        .build()) {
            CompletableFuture<HttpReply> pending = http.send(HttpCall.get("/never"));
            try (java.net.Socket accepted = silent.accept()) {
                accepted.setSoTimeout(20_000);
                java.io.InputStream in = accepted.getInputStream();
                byte[] head = new byte[4096];
                assertThat(in.read(head)).isPositive();
                pending.cancel(true);
                assertThat(in.read(head)).as("the client closed the connection").isEqualTo(-1);
            }
            assertThat(pending).isCancelled();
        }
    }

    @Test
    void aServerRestartIsSurvivedWithNewConnections() throws Exception {
        for (HttpProtocol protocol : List.of(HttpProtocol.HTTP_1_1, HttpProtocol.H2C)) {
            List<ConnectionInfo> opened = new CopyOnWriteArrayList<>();
            List<ConnectionInfo> closed = new CopyOnWriteArrayList<>();
            TestServers.Running first = TestServers.http(b -> b);
            int port = first.port();
            try (HttpClientEngine http = HttpClientEngine.builder(URI.create("http://127.0.0.1:" + port + "/mcp"))
                    .protocol(protocol).connectionListener(new ConnectionListener() {
                        @Override
                        public void connected(ConnectionInfo info) {
                            opened.add(info);
                        }

                        @Override
                        public void closed(ConnectionInfo info) {
                            closed.add(info);
                        }
                    }).build()) {
                assertThat(http.send(toolsList()).get(20, TimeUnit.SECONDS).status()).isEqualTo(200);
                first.close();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (closed.isEmpty() && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
                assertThat(closed).as(protocol + ": the client noticed the server closing").hasSize(1);
                try (TestServers.Running second = TestServers.http(b -> b.port(port))) {
                    assertThat(http.send(toolsList()).get(20, TimeUnit.SECONDS).status()).isEqualTo(200);
                }
                assertThat(opened).hasSize(2);
            }
        }
    }

    @Test
    void refusedConnectionsAndTimeoutsFailTheFuture() throws Exception {
        int closedPort;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        try (HttpClientEngine http = HttpClientEngine.builder(URI.create("http://127.0.0.1:" + closedPort + "/"))
                .build()) {
            assertThatThrownBy(() -> http.send(HttpCall.get(null)).get(20, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(HttpClientException.class);
        }
        try (java.net.ServerSocket silent = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
                HttpClientEngine http = HttpClientEngine.builder(URI.create("http://127.0.0.1:" + silent.getLocalPort()))
                        .responseTimeout(Duration.ofMillis(300)).build()) {
            assertThatThrownBy(() -> http.send(HttpCall.get(null)).get(20, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(java.util.concurrent.TimeoutException.class);
        }
    }

    @Test
    void aRequestSentFromTheEnginesOwnIoThreadTimesOutToo() throws Exception {
        io.netty.channel.EventLoopGroup group = new io.netty.channel.MultiThreadIoEventLoopGroup(1,
                io.netty.channel.nio.NioIoHandler.newFactory());
        try (java.net.ServerSocket silent = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
                HttpClientEngine http = HttpClientEngine.builder(URI.create("http://127.0.0.1:" + silent.getLocalPort()))
                        .eventLoopGroup(group).responseTimeout(Duration.ofMillis(300)).build()) {
            long start = System.nanoTime();
            CompletableFuture<HttpReply> reply = group.next().submit(() -> http.send(HttpCall.get(null)))
                    .get(20, TimeUnit.SECONDS);

            assertThatThrownBy(() -> reply.get(20, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(java.util.concurrent.TimeoutException.class)
                    .hasMessageContaining("no complete response within PT0.3S");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(250),
                    Duration.ofSeconds(10));
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
    }
}
