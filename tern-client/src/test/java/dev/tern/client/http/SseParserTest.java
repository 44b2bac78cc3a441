package dev.tern.client.http;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class SseParserTest {

    @Test
    void eventsSplitAcrossChunksAndLineEndings() {
        List<SseEvent> seen = new ArrayList<>();
        SseParser parser = new SseParser(seen::add);
        String stream = ": comment\r\nid: 7\r\nevent: message\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\n"
                + "data:no space\n\ndata: x\rdata: y\r\rdata: incomplete";
        byte[] bytes = stream.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < bytes.length; i += 3) {
            parser.feed(java.util.Arrays.copyOfRange(bytes, i, Math.min(bytes.length, i + 3)));
        }
        assertThat(seen).containsExactly(
                new SseEvent("7", "message", "{\"a\":\n1}"),
                new SseEvent("7", "message", "no space"),
                new SseEvent("7", "message", "x\ny"));
        assertThat(parser.events()).isEqualTo(seen);
    }

    @Test
    void utf8SplitInsideACharacterAndEventsWithoutData() {
        SseParser parser = new SseParser(null);
        byte[] bytes = "event: ping\n\ndata: héllo ☃\n\n".getBytes(StandardCharsets.UTF_8);
        for (byte b : bytes) {
            parser.feed(new byte[] {b});
        }
        assertThat(parser.events()).containsExactly(new SseEvent(null, "message", "héllo ☃"));
    }
}
