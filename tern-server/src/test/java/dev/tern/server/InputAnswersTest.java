package dev.tern.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.tern.protocol.Json;
import dev.tern.protocol.McpException;

class InputAnswersTest {

    @Test
    void anElicitationAnswerNeedsAKnownAction() {
        InputAnswers answers = new InputAnswers(Map.of(
                "ok", Json.mapper().readTree("{\"action\":\"accept\",\"content\":{\"name\":\"Ada\"}}"),
                "number", Json.mapper().readTree("{\"action\":7}"),
                "unknown", Json.mapper().readTree("{\"action\":\"maybe\"}")));
        assertThat(answers.elicitation("ok").accepted()).isTrue();
        assertThat(answers.elicitation("ok").content().path("name").asString()).isEqualTo("Ada");
        assertThatThrownBy(() -> answers.elicitation("number")).isInstanceOf(McpException.class)
                .hasMessageContaining("number.action");
        assertThatThrownBy(() -> answers.elicitation("unknown")).isInstanceOf(McpException.class);
        assertThatThrownBy(() -> answers.raw("absent")).isInstanceOf(IllegalArgumentException.class);
    }
}
