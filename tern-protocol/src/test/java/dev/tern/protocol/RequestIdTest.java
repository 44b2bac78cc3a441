package dev.tern.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

class RequestIdTest {

    @Test
    void idsOfTheSameKindAndValueAreEqualAndHashAlike() {
        assertThat(RequestId.of(7)).isEqualTo(RequestId.of(7)).hasSameHashCodeAs(RequestId.of(7));
        assertThat(RequestId.of("a-1")).isEqualTo(RequestId.of("a-1")).hasSameHashCodeAs(RequestId.of("a-1"));
        assertThat(RequestId.of(Long.MIN_VALUE)).isEqualTo(RequestId.of(Long.MIN_VALUE));
    }

    @Test
    void aNumberNeverEqualsTheStringOfItsDigits() {
        assertThat(RequestId.of(1)).isNotEqualTo(RequestId.of("1"));
        assertThat(RequestId.of("1")).isNotEqualTo(RequestId.of(1));
        assertThat(RequestId.of(1)).isNotEqualTo(RequestId.of(2)).isNotEqualTo(null).isNotEqualTo(1L);
        assertThat(RequestId.of("x")).isNotEqualTo(RequestId.of("y")).isNotEqualTo("x");
    }

    @Test
    void aMapKeyedByIdsKeepsANumberAndItsDigitsApart() {
        Map<RequestId, String> pending = new HashMap<>();
        pending.put(RequestId.of(1), "number");
        pending.put(RequestId.of("1"), "string");
        assertThat(pending).hasSize(2).containsEntry(RequestId.of(1), "number").containsEntry(RequestId.of("1"), "string");
    }
}
