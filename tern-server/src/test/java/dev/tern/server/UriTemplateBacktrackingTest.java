package dev.tern.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;

/** Exposes: adjacent variables separated by a character the variables may also hold backtrack polynomially. */
class UriTemplateBacktrackingTest {
    @Test
    void dottedVariablesOnANonMatchingInputFinish() {
        UriTemplate t = UriTemplate.of("db://{schema}.{table}.{column}/x");
        String input = "db://" + ".".repeat(8000) + "/y";
        Assertions.assertTimeoutPreemptively(Duration.ofSeconds(30), () -> assertThat(t.match(input)).isEmpty());
    }

    @Test
    void adjacentVariablesAreRefused() {
        Assertions.assertThrows(IllegalArgumentException.class, () -> UriTemplate.of("x://{a}{b}/end"));
    }

    @Test
    void pathParametersAndConsecutiveQueryExpressionsMatch() {
        assertThat(UriTemplate.of("a://p{;x}").match("a://p;x=1").orElseThrow()).containsEntry("x", "1");
        assertThat(UriTemplate.of("s://i{?q}{&page}").match("s://i?q=cats&page=2").orElseThrow())
                .containsEntry("q", "cats").containsEntry("page", "2");
    }

    @Test
    void aVariableStopsAtTheLiteralThatFollowsIt() {
        assertThat(UriTemplate.of("db://{schema}.{table}/x").match("db://main.users/x").orElseThrow())
                .containsEntry("schema", "main").containsEntry("table", "users");
    }
}
