package dev.tern.observability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

import dev.tern.examples.Examples;
import dev.tern.protocol.Json;
import dev.tern.server.McpServer;
import dev.tern.transport.http.HttpServerTransport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The HTTP transport's own counts reach the metrics and the status feed: open SSE streams, the events held for
 * resumption, and TLS handshakes completed and failed.
 */
class TransportCountsTest {
    private final Fixture fixture = new Fixture();
    private final Observability status = Observability.builder().status(true).build();
    private McpServer server;
    private HttpServerTransport http;

    @AfterEach
    void stop() {
        if (http != null) {
            http.close();
        }
        if (server != null) {
            server.close();
        }
        fixture.close();
        status.close();
    }

    private URI start(java.util.function.Consumer<HttpServerTransport.Builder> options) throws InterruptedException {
        server = Examples.create("user-directory", (path, description, handler) -> {
        }, b -> b.observer(fixture.observer));
        HttpServerTransport.Builder b = HttpServerTransport.builder(server).host("127.0.0.1").port(0);
        options.accept(b);
        http = b.build().start();
        return URI.create(http.url());
    }

    @Test
    void anOpenGetStreamCountsAsAnSseStreamUntilItsSessionEnds() throws Exception {
        URI endpoint = start(b -> b.sse(s -> s.replies(true)));
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        HttpResponse<String> init = client.send(post(endpoint, null, """
                {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",
                 "capabilities":{},"clientInfo":{"name":"test","version":"1"}}}"""), HttpResponse.BodyHandlers.ofString());
        String session = init.headers().firstValue("mcp-session-id").orElseThrow();
        client.send(post(endpoint, session, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"),
                HttpResponse.BodyHandlers.discarding());
        HttpResponse<String> call = client.send(post(endpoint, session, """
                {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_user","arguments":{"id":"9"}}}"""),
                HttpResponse.BodyHandlers.ofString());
        assertThat(call.body()).startsWith("data: ").contains("structuredContent");
        // A lone answer on its own stream is not kept for resumption; the stream is closed once it is out.
        assertThat(awaitSample("tern_server_sse_streams_active", 0)).isZero();
        assertThat(Fixture.sample(fixture.metricsText(), "tern_server_event_store_size")).isZero();

        HttpResponse<InputStream> stream = client.send(HttpRequest.newBuilder(endpoint).GET()
                .header("Accept", "text/event-stream").header("Mcp-Session-Id", session)
                .header("MCP-Protocol-Version", "2025-11-25").build(), HttpResponse.BodyHandlers.ofInputStream());
        try (InputStream body = stream.body()) {
            assertThat(stream.statusCode()).isEqualTo(200);
            assertThat(awaitSample("tern_server_sse_streams_active", 1)).isEqualTo(1);
        }
        client.send(HttpRequest.newBuilder(endpoint).DELETE().header("Mcp-Session-Id", session)
                .header("MCP-Protocol-Version", "2025-11-25").build(), HttpResponse.BodyHandlers.discarding());
        assertThat(awaitSample("tern_server_sse_streams_active", 0)).isZero();
        assertThat(awaitSample("tern_server_event_store_size", 0)).isZero();
    }

    @Test
    void tlsHandshakesAreCountedCompletedAndFailed() throws Exception {
        URI endpoint = start(b -> b.tls(t -> t.selfSigned().handshakeTimeout(Duration.ofSeconds(5))));
        assertThat(endpoint.getScheme()).isEqualTo("https");
        HttpClient client = HttpClient.newBuilder().sslContext(trustAll()).version(HttpClient.Version.HTTP_1_1).build();
        HttpResponse<String> health = client.send(HttpRequest.newBuilder(endpoint.resolve("/health")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(health.statusCode()).isEqualTo(200);
        try (Socket plain = new Socket(InetAddress.getLoopbackAddress(), endpoint.getPort())) {
            plain.setSoTimeout(10_000);
            plain.getOutputStream().write("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            plain.getOutputStream().flush();
            plain.getInputStream().readAllBytes();
        } catch (IOException closedByTheServer) {
            // the server ends a connection whose first bytes are not a TLS hello
        }

        assertThat(awaitSample("tern_server_tls_handshakes_total", 1, "!error_type")).isEqualTo(1);
        assertThat(awaitSample("tern_server_tls_handshakes_total", 1,
                "error_type=\"tls_handshake_failed\"")).isEqualTo(1);
    }

    @Test
    void theStatusFeedShowsTheTransportsCounts() throws Exception {
        server = Examples.create("user-directory", (path, description, handler) -> {
        }, b -> b.observer(status.observer()));
        http = HttpServerTransport.builder(server).host("127.0.0.1").port(0)
                .tls(t -> t.selfSigned()).build().start();
        HttpClient client = HttpClient.newBuilder().sslContext(trustAll()).version(HttpClient.Version.HTTP_1_1).build();
        client.send(HttpRequest.newBuilder(URI.create(http.url()).resolve("/health")).build(),
                HttpResponse.BodyHandlers.discarding());

        var gauges = Json.mapper().readTree(status.status().json()).path("gauges");

        assertThat(gauges.path("sse_streams").asLong()).isZero();
        assertThat(gauges.path("event_store_size").asLong()).isZero();
        assertThat(gauges.path("tls_handshakes").asLong()).isEqualTo(1);
        assertThat(gauges.path("tls_handshake_failures").asLong()).isZero();
    }

    /** The value of the sample once it equals {@code expected}, or its last value after five seconds. */
    private double awaitSample(String name, double expected, String... labels) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        DoubleSupplier read = () -> Fixture.sample(fixture.metricsText(), name, labels);
        double value = read.getAsDouble();
        while (value != expected && System.nanoTime() < deadline) {
            Thread.sleep(20);
            value = read.getAsDouble();
        }
        return value;
    }

    private static HttpRequest post(URI endpoint, String session, String body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(endpoint)
                .header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (session != null) {
            b.header("Mcp-Session-Id", session).header("MCP-Protocol-Version", "2025-11-25");
        }
        return b.build();
    }

    private static SSLContext trustAll() throws Exception {
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, new TrustManager[] {new X509TrustManager() {
            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType) {
            }

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType) {
            }

            @Override
            public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
            }
        }}, null);
        return context;
    }
}
