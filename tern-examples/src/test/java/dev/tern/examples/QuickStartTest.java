package dev.tern.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import dev.tern.protocol.Json;
import dev.tern.server.McpServer;
import dev.tern.testing.TestClient;

import tools.jackson.databind.JsonNode;

class QuickStartTest {

    @Test
    void theReadmeSnippetIsTheCompiledQuickStart() throws IOException {
        Path root = Path.of(System.getProperty("tern.root", "..")).toAbsolutePath();
        String readme = Files.readString(root.resolve("README.md"));
        Matcher m = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL).matcher(readme);
        assertThat(m.find()).as("README has a java snippet").isTrue();
        String source = Files.readString(root.resolve("tern-examples/src/main/java/dev/tern/examples/QuickStart.java"));
        String compiled = source.substring(source.indexOf("// README snippet start") + "// README snippet start".length(),
                source.indexOf("    // README snippet end"));
        assertThat(normalize(m.group(1))).isEqualTo(normalize(compiled));
    }

    @Test
    void theQuickStartServerAnswersWithStructuredContent() {
        McpServer server = McpServer.builder().info("weather", "1.0.0").register(new QuickStart.Weather()).build();
        try (TestClient client = TestClient.legacy(server, "2025-11-25")) {
            client.initialize();
            JsonNode tools = client.request("tools/list", null).result().get("tools");
            assertThat(tools).hasSize(1);
            assertThat(tools.get(0).path("outputSchema").path("properties").has("highCelsius")).isTrue();
            JsonNode result = client.callTool("forecast", Json.object().put("city", "Lisbon")).result();
            assertThat(result.path("structuredContent").path("city").asString()).isEqualTo("Lisbon");
            assertThat(result.path("content").get(0).path("text").asString()).contains("\"sky\":\"sunny\"");
        } finally {
            server.close();
        }
    }

    private static List<String> normalize(String code) {
        return code.lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
    }
}
