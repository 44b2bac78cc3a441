package dev.tern.transport.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** Every response tells clients not to guess another content type than the one it declares. */
class NoSniffTest {

    @Test
    void everyKindOfResponseCarriesXContentTypeOptionsNosniff() throws Exception {
        try (Served served = new Served(b -> b.restFacade(true));
                HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build()) {
            String base = "http://127.0.0.1:" + served.port();
            HttpRequest.Builder mcp = HttpRequest.newBuilder(URI.create(base + "/mcp"))
                    .POST(HttpRequest.BodyPublishers.ofString(Mcp.request(1, "tools/call",
                            Mcp.meta(Mcp.toolCall("get_user", Mcp.args("id", "42"))))))
                    .header("Content-Type", "application/json").header("Accept", Mcp.ACCEPT);
            Mcp.modernHeaders("tools/call", "get_user").forEach(mcp::header);
            Map<String, HttpRequest.Builder> requests = new LinkedHashMap<>();
            requests.put("health", HttpRequest.newBuilder(URI.create(base + "/health")));
            requests.put("MCP result", mcp);
            requests.put("MCP malformed", HttpRequest.newBuilder(URI.create(base + "/mcp"))
                    .POST(HttpRequest.BodyPublishers.ofString("{")).header("Content-Type", "application/json")
                    .header("Accept", Mcp.ACCEPT));
            requests.put("REST tool", HttpRequest.newBuilder(URI.create(base + "/rest/tools/get_user"))
                    .POST(HttpRequest.BodyPublishers.ofString("{\"id\":\"7\"}")));
            requests.put("not found", HttpRequest.newBuilder(URI.create(base + "/nothing-here")));
            for (var entry : requests.entrySet()) {
                HttpResponse<String> response = http.send(entry.getValue().timeout(Duration.ofSeconds(30)).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(response.headers().allValues("x-content-type-options")).as(entry.getKey())
                        .containsExactly("nosniff");
            }
        }
    }
}
