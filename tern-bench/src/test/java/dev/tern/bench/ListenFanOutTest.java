package dev.tern.bench;

import java.net.URI;
import java.time.Duration;

import dev.tern.examples.Examples;
import dev.tern.server.McpServer;
import dev.tern.transport.http.HttpServerTransport;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code tern bench listens} against a real server, at a small count. */
class ListenFanOutTest {

    @Test
    void aListChangeReachesEveryListenOpenedOverManyConnectionsAndAddresses() throws Exception {
        McpServer server = Examples.create("conformance");
        HttpServerTransport transport = HttpServerTransport.builder(server).host("127.0.0.1").port(0)
                .sessions(s -> s.max(1_000).maxPerClient(100)).build().start();
        try {
            ListenFanOut.Result r = ListenFanOut.builder().url(URI.create(transport.url()), 0)
                    .count(200).streamsPerConnection(50).perAddress(100)
                    .deadline(Duration.ofMinutes(2), Duration.ofSeconds(30)).build().run();

            assertThat(r.errors()).as("%s", r.firstError()).isZero();
            assertThat(r.acknowledged()).isEqualTo(200);
            assertThat(r.notified()).isEqualTo(200);
            // 100 listens from each of 2 addresses, within the server's share of one client; 50 streams a connection
            assertThat(r.addresses()).isEqualTo(2);
            assertThat(r.connections()).isEqualTo(4);
            assertThat(r.firstMs()).isPositive().isLessThanOrEqualTo(r.p50Ms());
            assertThat(r.p50Ms()).isLessThanOrEqualTo(r.p99Ms());
            assertThat(r.p99Ms()).isLessThanOrEqualTo(r.maxMs());
            assertThat(r.serverWithListens().rssBytes()).isEqualTo(-1); // no server process given to sample
            assertThat(r.clientWithListens().rssBytes()).isPositive();
            assertThat(r.serverCpuMs()).isNaN(); // nor its CPU
            assertThat(r.clientCpuMs()).isGreaterThanOrEqualTo(0);
            assertThat(r.markdown()).contains("| 200 of 200 | 4 (50) | 2 |");
        } finally {
            transport.close();
            server.close();
        }
    }

    @Test
    void onlyALocalServerOverCleartextHttpIsLoaded() {
        assertThatThrownBy(() -> ListenFanOut.builder().url(URI.create("http://10.0.0.1:8080/mcp"), 0).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("127.0.0.1");
        assertThatThrownBy(() -> ListenFanOut.builder().url(URI.create("http://127.0.0.1:8080/mcp"), 0)
                .count(ListenFanOut.MAX_COUNT + 1).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--count");
        assertThatThrownBy(() -> ListenFanOut.builder().build())
                .isInstanceOf(IllegalArgumentException.class);
    }
}
