package dev.tern.observability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.server.observe.McpObserver;

import org.junit.jupiter.api.Test;

class OffObservabilityTest {

    @Test
    void observabilityWithNothingTurnedOnHandsOutTheObserverThatCostsNothing() {
        assertThat(Observability.builder().build().observer()).isSameAs(McpObserver.off());
    }
}
