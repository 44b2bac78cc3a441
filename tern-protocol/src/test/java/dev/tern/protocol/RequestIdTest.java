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

    @Test
    void aJsonValueIsAnIdOnlyWhenAStringOrAnIntegerThatFitsALong() throws Exception {
        var mapper = Json.mapper();
        assertThat(RequestId.of(mapper.readTree("\"a\""))).isEqualTo(RequestId.of("a"));
        assertThat(RequestId.of(mapper.readTree("42"))).isEqualTo(RequestId.of(42));
        assertThat(RequestId.of(mapper.readTree("-9223372036854775808"))).isEqualTo(RequestId.of(Long.MIN_VALUE));
        for (String notAnId : new String[] {"9223372036854775808", "1.5", "true", "null", "{}", "[1]"}) {
            assertThat(RequestId.of(mapper.readTree(notAnId))).as(notAnId).isNull();
        }
    }

    @Test
    void theStreamingReaderAgreesWithTheTreeOnWhatAnIdIs() throws Exception {
        for (String value : new String[] {"\"a\"", "42", "-9223372036854775808", "9223372036854775808", "1.5", "true"}) {
            try (var parser = Json.mapper().createParser(value)) {
                var token = parser.nextToken();
                assertThat(RequestId.of(parser, token)).as(value).isEqualTo(RequestId.of(Json.mapper().readTree(value)));
            }
        }
    }
}
