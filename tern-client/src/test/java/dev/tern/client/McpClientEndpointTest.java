package dev.tern.client;

import java.net.URI;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Which endpoint a client's URI names, and what it says when nothing answers MCP there. */
class McpClientEndpointTest {
    private static TestServers.Running server;

    @BeforeAll
    static void start() throws InterruptedException {
        server = TestServers.http(b -> b);
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void aUriWithoutAPathMeansItsMcpPathAndAnyOtherIsKept() {
        assertThat(McpClient.withDefaultPath(URI.create("http://127.0.0.1:8080")))
                .isEqualTo(URI.create("http://127.0.0.1:8080/mcp"));
        assertThat(McpClient.withDefaultPath(URI.create("https://mcp.example?tenant=a%20b")))
                .isEqualTo(URI.create("https://mcp.example/mcp?tenant=a%20b"));
        assertThat(McpClient.withDefaultPath(URI.create("http://127.0.0.1:8080/")))
                .isEqualTo(URI.create("http://127.0.0.1:8080/"));
        assertThat(McpClient.withDefaultPath(URI.create("http://127.0.0.1:8080/api/mcp")))
                .isEqualTo(URI.create("http://127.0.0.1:8080/api/mcp"));
    }

    @Test
    void aBareBaseUrlReachesTheServersMcpEndpoint() throws Exception {
        try (McpClient client = McpClient.http(URI.create("http://127.0.0.1:" + server.port())).build()) {
            assertThat(client.listTools().get(10, TimeUnit.SECONDS)).isNotEmpty();
        }
    }

    @Test
    void aPathWithoutAnEndpointIsReportedAsSuch() {
        try (McpClient client = McpClient.http(URI.create("http://127.0.0.1:" + server.port() + "/nope"))
                .era(Era.LEGACY).build()) {
            assertThatThrownBy(() -> client.listTools().get(10, TimeUnit.SECONDS))
                    .hasRootCauseInstanceOf(McpClientException.class)
                    .rootCause().hasMessageContaining("initialize got HTTP 404")
                    .hasMessageContaining("no MCP endpoint at http://127.0.0.1:" + server.port() + "/nope: check the URL's path");
        }
    }
}
