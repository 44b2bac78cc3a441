package dev.tern.observability;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;

import dev.tern.server.observe.McpObserver;
import dev.tern.server.observe.RequestObservation;
import dev.tern.server.observe.Transport;
import dev.tern.server.observe.TransportStats;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class MetricsTest {
    private final Fixture fixture = new Fixture();

    @AfterEach
    void close() {
        fixture.close();
    }

    private void call(String tool, long nanos, int errorCode) {
        long t0 = System.nanoTime();
        RequestObservation o = fixture.observer.request(Transport.HTTP_1_1, t0)
                .parsed(t0 + 1, "tools/call", tool)
                .protocolVersion("2026-07-28");
        if (errorCode == 0) {
            o.end(t0 + nanos);
        } else {
            o.endError(t0 + nanos, errorCode, "failed");
        }
    }

    @Test
    void theOperationDurationHistogramCountsCallsPerToolInSecondsWithTheConventionsBuckets() {
        call("get_user", 3_000_000, 0);
        call("get_user", 40_000_000, 0);
        call("search_users", 1_000_000, 0);

        String text = fixture.metricsText();

        String getUser = "gen_ai_tool_name=\"get_user\"";
        assertThat(Fixture.sample(text, "mcp_server_operation_duration_seconds_count", getUser)).isEqualTo(2);
        assertThat(Fixture.sample(text, "mcp_server_operation_duration_seconds_sum", getUser)).isCloseTo(0.043,
                org.assertj.core.data.Offset.offset(1e-9));
        assertThat(Fixture.sample(text, "mcp_server_operation_duration_seconds_bucket", getUser, "le=\"0.01\"")).isEqualTo(1);
        assertThat(Fixture.sample(text, "mcp_server_operation_duration_seconds_bucket", getUser, "le=\"0.05\"")).isEqualTo(2);
        assertThat(Fixture.sample(text, "mcp_server_operation_duration_seconds_bucket", getUser, "le=\"300.0\"")).isEqualTo(2);
        assertThat(Fixture.sample(text, "mcp_server_operation_duration_seconds_count", "gen_ai_tool_name=\"search_users\"",
                "mcp_method_name=\"tools/call\"", "mcp_protocol_version=\"2026-07-28\"", "network_transport=\"tcp\"",
                "network_protocol_name=\"http\"", "network_protocol_version=\"1.1\"",
                "gen_ai_operation_name=\"execute_tool\"")).isEqualTo(1);
        assertThat(text).contains("# TYPE mcp_server_operation_duration_seconds histogram");
    }

    @Test
    void errorsAreCountedPerToolAndErrorType() {
        call("get_user", 1_000, 0);
        call("get_user", 1_000, -32602);
        call("get_user", 1_000, -32602);

        String text = fixture.metricsText();

        assertThat(Fixture.sample(text, "mcp_server_operation_duration_seconds_count", "gen_ai_tool_name=\"get_user\"",
                "error_type=\"-32602\"", "rpc_response_status_code=\"-32602\"")).isEqualTo(2);
    }

    @Test
    void sessionsAreMeasuredFromOpeningToEnd() {
        long t0 = System.nanoTime();
        fixture.observer.session(Transport.HTTP_2, "2025-11-25", t0).end(t0 + 2_500_000_000L);
        fixture.observer.session(Transport.HTTP_2, "2025-11-25", t0).endError(t0 + 1_000_000_000L, "timeout");

        String text = fixture.metricsText();

        assertThat(Fixture.sample(text, "mcp_server_session_duration_seconds_sum", "mcp_protocol_version=\"2025-11-25\"",
                "network_protocol_version=\"2\"", "!error_type")).isEqualTo(2.5);
        assertThat(Fixture.sample(text, "mcp_server_session_duration_seconds_count", "error_type=\"timeout\"")).isEqualTo(1);
    }

    @Test
    void theTransportsCountsAreReadWhenMetricsAreCollected() {
        AtomicLong inFlight = new AtomicLong(3);
        TransportStats stats = new TransportStats() {
            @Override
            public long requestsInFlight() {
                return inFlight.get();
            }

            @Override
            public long sessions() {
                return 12;
            }

            @Override
            public long shed() {
                return 5;
            }

            @Override
            public long tlsHandshakesFull() {
                return 7;
            }

            @Override
            public long tlsHandshakesResumed() {
                return 2;
            }
        };
        McpObserver.Registration registration = fixture.observer.register(stats);
        try {
            assertThat(Fixture.sample(fixture.metricsText(), "tern_server_requests_active", "")).isEqualTo(3);
            inFlight.set(9);

            String text = fixture.metricsText();

            assertThat(Fixture.sample(text, "tern_server_requests_active", "")).isEqualTo(9);
            assertThat(Fixture.sample(text, "tern_server_sessions_active", "")).isEqualTo(12);
            assertThat(Fixture.sample(text, "tern_server_requests_shed_total", "")).isEqualTo(5);
            assertThat(Fixture.sample(text, "tern_server_tls_handshakes_total", "tls_resumed=\"false\"")).isEqualTo(7);
            assertThat(Fixture.sample(text, "tern_server_tls_handshakes_total", "tls_resumed=\"true\"")).isEqualTo(2);
            assertThat(text).as("counts the transport does not keep")
                    .doesNotContain("tern_server_listens_active", "tern_server_event_store_size");
        } finally {
            registration.close();
        }
        assertThat(fixture.metricsText()).doesNotContain("tern_server_requests_active");
    }

    @Test
    void jvmMemoryGcAndThreadsAreReported() {
        String text = fixture.metricsText();

        assertThat(text).contains("jvm_memory_used_bytes", "jvm_thread_count", "jvm_class_loaded");
    }

    @Test
    void aScraperAskingForOpenMetricsGetsIt() {
        call("get_user", 1_000, 0);

        var body = fixture.observability.metrics("application/openmetrics-text; version=1.0.0; charset=utf-8");

        assertThat(body.contentType()).startsWith("application/openmetrics-text");
        assertThat(new String(body.body(), StandardCharsets.UTF_8)).endsWith("# EOF\n");
        assertThat(fixture.observability.metrics("text/plain").contentType()).startsWith("text/plain; version=0.0.4");
        assertThat(fixture.observability.metrics(null).contentType()).startsWith("text/plain");
    }

    @Test
    void theStandaloneMetricsServerServesTheSameMetricsOnItsOwnPort() throws Exception {
        try (Observability own = Observability.builder().metricsServer("127.0.0.1", 0).build();
             HttpClient http = HttpClient.newHttpClient()) {
            long t0 = System.nanoTime();
            own.observer().request(Transport.STDIO, t0).parsed(t0 + 1, "tools/call", "get_user").end(t0 + 2);

            var response = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + own.metricsPort()
                    + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());

            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(Fixture.sample(response.body(), "mcp_server_operation_duration_seconds_count",
                    "gen_ai_tool_name=\"get_user\"", "network_transport=\"pipe\"")).isEqualTo(1);
        }
    }
}
