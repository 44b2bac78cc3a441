package dev.tern.transport.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.tern.protocol.CodecLimits;
import dev.tern.server.McpServer;

/** The builder's groups, their defaults, their errors, and the options read back from a transport. */
class HttpOptionsTest {
    private final McpServer server = McpServer.builder().info("t", "1").build();

    @AfterEach
    void stop() {
        server.close();
    }

    private static HttpOptions options(HttpServerTransport.Builder builder) {
        try (HttpServerTransport transport = builder.build()) {
            return transport.options();
        }
    }

    @Test
    void aTransportBuiltWithNothingSetReadsBackTheDefaults() {
        HttpOptions options = options(HttpServerTransport.builder(server));

        assertThat(options.host()).isEqualTo("127.0.0.1");
        assertThat(options.port()).isEqualTo(8080);
        assertThat(options.path()).isEqualTo("/mcp");
        assertThat(options.allowedHosts()).isEmpty();
        assertThat(options.ioTransport()).isEqualTo(IoTransport.AUTO);
        assertThat(options.restFacade()).isFalse();
        assertThat(options.limits()).isEqualTo(new HttpOptions.Limits(CodecLimits.DEFAULT, 8192, 16 * 1024, 4_096));
        assertThat(options.connections()).isEqualTo(new HttpOptions.ConnectionLimits(10_000, 512,
                Duration.ofSeconds(60), Duration.ofSeconds(10), Duration.ofSeconds(30), Duration.ofSeconds(30),
                4L * 1024 * 1024));
        assertThat(options.http2()).isEqualTo(new HttpOptions.Http2(256, 200, Duration.ofSeconds(30), 10_000, 2, 16));
        assertThat(options.tls()).isEmpty();
        assertThat(options.sessions().max()).isEqualTo(10_000);
        assertThat(options.sessions().maxPerClient()).isEqualTo(1_000);
        assertThat(options.sessions().idleTimeout()).isEqualTo(Duration.ofMinutes(30));
        assertThat(options.sessions().principals()).isSameAs(PrincipalResolver.ANONYMOUS);
        assertThat(options.sse()).isEqualTo(new HttpOptions.Sse(Duration.ofSeconds(15), false,
                java.util.Optional.of(new HttpOptions.Sse.LegacyPaths("/sse", "/messages"))));
    }

    @Test
    void eachGroupKeepsWhatItWasGivenAcrossCalls() {
        HttpOptions options = options(HttpServerTransport.builder(server).host("0.0.0.0").port(0).allowHost("Api.Example")
                .limits(l -> l.maxInFlight(8))
                .limits(l -> l.maxHeaderSize(4096))
                .connections(c -> c.max(20).maxPerAddress(4).writeTimeout(Duration.ofSeconds(5)))
                .http2(h -> h.maxConcurrentStreams(16).maxResets(50, Duration.ofSeconds(10)))
                .tls(t -> t.selfSigned())
                .tls(t -> t.protocols("TLSv1.3"))
                .sessions(s -> s.max(30).maxPerClient(3))
                .sse(s -> s.replies(true).noLegacy())
                .route("GET", "/users/{id}", request -> RouteResponse.json(request.pathVariables())));

        assertThat(options.allowedHosts()).containsExactlyInAnyOrder("api.example", "0.0.0.0");
        assertThat(options.limits().maxInFlight()).isEqualTo(8);
        assertThat(options.limits().maxHeaderSize()).isEqualTo(4096);
        assertThat(options.connections().max()).isEqualTo(20);
        assertThat(options.connections().maxPerAddress()).isEqualTo(4);
        assertThat(options.connections().writeTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(options.connections().requestBodyTimeout()).as("untouched").isEqualTo(Duration.ofSeconds(30));
        assertThat(options.http2().maxConcurrentStreams()).isEqualTo(16);
        assertThat(options.http2().maxResets()).isEqualTo(50);
        assertThat(options.http2().resetWindow()).isEqualTo(Duration.ofSeconds(10));
        HttpOptions.Tls tls = options.tls().orElseThrow();
        assertThat(tls.selfSigned()).isTrue();
        assertThat(tls.protocols()).containsExactly("TLSv1.3");
        assertThat(tls.handshakeTimeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(options.sessions().max()).isEqualTo(30);
        assertThat(options.sessions().maxPerClient()).isEqualTo(3);
        assertThat(options.sse().replies()).isTrue();
        assertThat(options.sse().legacy()).isEmpty();
        assertThat(options.routes()).containsExactly("GET /users/{id}");
    }

    @Test
    void theOptionsReadAsText() {
        String text = options(HttpServerTransport.builder(server).port(0).tls(t -> t.selfSigned())
                .connections(c -> c.maxPerAddress(7))).toString();

        assertThat(text).contains("host=127.0.0.1", "port=0", "path=/mcp", "maxPerAddress=7",
                "Tls[certificateChain=null", "eventStore=InMemoryEventStore", "principals=anonymous",
                "legacy=Optional[LegacyPaths[ssePath=/sse, messagesPath=/messages]]");
    }

    @Test
    void theOptionsTextShowsTheAuthorizationSettingsButNeverASecret() {
        assertThat(options(HttpServerTransport.builder(server).port(0)).toString()).contains("auth=off");
        try (dev.tern.auth.ResourceServer auth = dev.tern.auth.ResourceServer.builder("https://mcp.example.com/mcp")
                .authorizationServer("https://login.example.com").scopesSupported("users:read")
                .tokenExchange("https://login.example.com/token", "tern", "s3cret-of-tern").build()) {
            HttpOptions options = options(HttpServerTransport.builder(server).port(0).auth(auth));

            assertThat(options.auth()).containsSame(auth);
            assertThat(options.toString()).contains("resource=https://mcp.example.com/mcp",
                    "authorizationServers=[https://login.example.com]", "scopesSupported=[users:read]",
                    "tokenExchange=https://login.example.com/token as client tern").doesNotContain("s3cret-of-tern");
        }
    }

    @Test
    void badValuesAreRefusedWithTheOptionTheValueAndWhatIsExpected() {
        HttpServerTransport.Builder b = HttpServerTransport.builder(server);

        assertThatThrownBy(() -> b.http2(h -> h.maxConcurrentStreams(0)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("http2.maxConcurrentStreams: 0 (expected: > 0)");
        assertThatThrownBy(() -> b.connections(c -> c.requestBodyTimeout(Duration.ZERO)))
                .hasMessage("connections.requestBodyTimeout: PT0S (expected: > 0)");
        assertThatThrownBy(() -> b.connections(c -> c.maxBufferedResponseBytes(-1)))
                .hasMessage("connections.maxBufferedResponseBytes: -1 (expected: > 0)");
        assertThatThrownBy(() -> b.sessions(s -> s.maxPerClient(0)))
                .hasMessage("sessions.maxPerClient: 0 (expected: > 0)");
        assertThatThrownBy(() -> b.limits(l -> l.maxInFlight(-3)))
                .hasMessage("limits.maxInFlight: -3 (expected: > 0)");
        assertThatThrownBy(() -> b.port(70_000)).hasMessage("port: 70000 (expected: 0-65535)");
        assertThatThrownBy(() -> b.path("mcp")).hasMessage("path: mcp (expected: starting with /)");
        assertThatThrownBy(() -> b.tls(t -> t.protocols("TLSv1.1")))
                .hasMessage("tls.protocols: [TLSv1.1] (expected: TLSv1.3 and/or TLSv1.2)");
        assertThatThrownBy(() -> b.sse(s -> s.legacy("/sse", "/sse")))
                .hasMessage("sse.legacy: /sse, /sse (expected: two different paths)");
    }

    @Test
    void aCertificateIsAChainAndItsKey() {
        HttpOptions.Tls tls = new HttpOptions.Tls.Builder().certificate(Path.of("chain.pem"), Path.of("key.pem")).build();

        assertThat(tls.certificateChain()).isEqualTo(Path.of("chain.pem"));
        assertThat(tls.privateKey()).isEqualTo(Path.of("key.pem"));
        assertThat(tls.selfSigned()).isFalse();
    }

    @Test
    void tlsWithoutACertificateIsRefusedWhenBuilt() {
        HttpServerTransport.Builder b = HttpServerTransport.builder(server).tls(t -> t.protocols("TLSv1.3"));

        assertThatThrownBy(b::build).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("tls: no certificate (expected: certificate(chain, key) or selfSigned())");
    }
}
