package dev.tern.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.tern.protocol.Json;

class StdioEchoTest {
    @Test
    void answersEveryRequestWithANumericIdOnALineOfItsOwnAndSkipsTheRest() throws Exception {
        String input = "{\"jsonrpc\":\"2.0\",\"id\":42,\"method\":\"tools/call\",\"params\":{}}\n"
                + "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
                + "{\"jsonrpc\":\"2.0\",\"id\":\"text\",\"method\":\"ping\"}\n"
                + "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}\n"
                + "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"ping\"}";
        ByteArrayOutputStream out = new ByteArrayOutputStream();

        new StdioEcho(900).serve(new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)), out);

        List<String> lines = out.toString(StandardCharsets.UTF_8).lines().toList();
        assertThat(lines).hasSize(2);
        assertThat(Json.mapper().readTree(lines.get(0)).path("id").asLong()).isEqualTo(42);
        assertThat(Json.mapper().readTree(lines.get(1)).path("id").asLong()).isEqualTo(7);
        assertThat(lines.get(0).length() + 1).isEqualTo(900);
        assertThat(lines.get(1)).hasSize(lines.get(0).length() - 1);
    }
}
