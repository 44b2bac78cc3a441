package dev.tern.transport.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The benchmark's calls are answered in full by the real pipelines (Tern's and the floor's), each on one connection,
 * again and again.
 */
class HttpPipelineBenchmarkTest {
    private final HttpPipelineBenchmark benchmark = new HttpPipelineBenchmark();

    @BeforeEach
    void setUp() {
        benchmark.setUp();
    }

    @AfterEach
    void tearDown() {
        benchmark.tearDown();
    }

    @Test
    void mcpCallIsAnsweredWithTheUserEachTime() {
        for (int i = 0; i < 3; i++) {
            String response = benchmark.responseTo(HttpPipelineBenchmark.MCP_REQUEST);
            assertThat(response).startsWith("HTTP/1.1 200 OK\r\n").containsIgnoringCase("content-type: application/json")
                    .contains("\"id\":1", "\"structuredContent\":{\"id\":\"42\"").doesNotContain("\"error\"");
        }
        assertThat(benchmark.mcp()).isGreaterThan(HttpPipelineBenchmark.MCP_BODY.length);
    }

    @Test
    void restCallIsAnsweredWithTheUserEachTime() {
        for (int i = 0; i < 3; i++) {
            String response = benchmark.responseTo(HttpPipelineBenchmark.REST_REQUEST);
            assertThat(response).startsWith("HTTP/1.1 200 OK\r\n").contains("{\"id\":\"42\"");
        }
        assertThat(benchmark.rest()).isGreaterThan(100);
    }

    @Test
    void theFloorAnswersTheSameCallsWithTheSameUser() {
        for (int i = 0; i < 3; i++) {
            assertThat(benchmark.floorResponseTo(HttpPipelineBenchmark.MCP_REQUEST)).startsWith("HTTP/1.1 200 OK\r\n")
                    .contains("\"id\":1", "\"structuredContent\":{\"id\":\"42\"").doesNotContain("\"error\"");
            assertThat(benchmark.floorResponseTo(HttpPipelineBenchmark.REST_REQUEST)).startsWith("HTTP/1.1 200 OK\r\n")
                    .contains("{\"id\":\"42\"");
        }
        assertThat(benchmark.floorMcp()).isGreaterThan(HttpPipelineBenchmark.MCP_BODY.length);
        assertThat(benchmark.floorRest()).isGreaterThan(100);
    }

    @Test
    void bothCallsShareTheConnection() {
        assertThat(benchmark.responseTo(HttpPipelineBenchmark.MCP_REQUEST)).startsWith("HTTP/1.1 200 OK");
        assertThat(benchmark.responseTo(HttpPipelineBenchmark.REST_REQUEST)).startsWith("HTTP/1.1 200 OK");
        assertThat(benchmark.responseTo(HttpPipelineBenchmark.MCP_REQUEST)).startsWith("HTTP/1.1 200 OK");
    }
}
