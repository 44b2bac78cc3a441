package dev.tern.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ProtocolVersionTest {

    @ParameterizedTest
    @CsvSource({"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"})
    void initializeEchoesALegacyVersionWeSpeak(String requested) {
        // 2025-11-25 lifecycle: if the server supports the requested version it MUST answer with the same one
        assertThat(ProtocolVersion.negotiateLegacy(requested).id()).isEqualTo(requested);
    }

    @ParameterizedTest
    @ValueSource(strings = {"1999-01-01", "2030-01-01", "", "2025-11-25 ", "latest"})
    void initializeWithAnUnknownVersionGetsTheNewestLegacyVersion(String requested) {
        // ... otherwise it MUST answer with another version it supports, SHOULD be its latest (not an error)
        assertThat(ProtocolVersion.negotiateLegacy(requested)).isEqualTo(ProtocolVersion.V2025_11_25);
    }

    @Test
    void initializeWithoutAVersionGetsTheNewestLegacyVersion() {
        assertThat(ProtocolVersion.negotiateLegacy(null)).isEqualTo(ProtocolVersion.LATEST_LEGACY);
    }

    @Test
    void initializeNeverNegotiatesTheStatelessEra() {
        // 2026-07-28 has no initialize: a client asking for it there gets the newest revision that has one
        assertThat(ProtocolVersion.negotiateLegacy("2026-07-28")).isEqualTo(ProtocolVersion.V2025_11_25);
        assertThat(ProtocolVersion.negotiateLegacy("2026-07-28").isModern()).isFalse();
    }

    @Test
    void parse() {
        for (ProtocolVersion v : ProtocolVersion.values()) {
            assertThat(ProtocolVersion.parse(v.id())).contains(v);
            assertThat(v.toString()).isEqualTo(v.id());
        }
        assertThat(ProtocolVersion.parse("2025-1-25")).isEmpty();
        assertThat(ProtocolVersion.parse(null)).isEmpty();
    }

    @Test
    void onlyTheNewestRevisionIsModern() {
        assertThat(ProtocolVersion.V2026_07_28.isModern()).isTrue();
        assertThat(ProtocolVersion.LATEST).isEqualTo(ProtocolVersion.V2026_07_28);
        for (ProtocolVersion v : ProtocolVersion.values()) {
            if (v != ProtocolVersion.V2026_07_28) {
                assertThat(v.isModern()).as(v.id()).isFalse();
            }
        }
    }

    @Test
    void onlyTwentyFiveMarchTwentySixAllowsBatches() {
        // batching was added in 2025-03-26 and removed in 2025-06-18
        for (ProtocolVersion v : ProtocolVersion.values()) {
            assertThat(v.allowsBatches()).as(v.id()).isEqualTo(v == ProtocolVersion.V2025_03_26);
        }
    }

    @Test
    void versionsAreOrderedByDate() {
        assertThat(ProtocolVersion.V2025_11_25.atLeast(ProtocolVersion.V2025_06_18)).isTrue();
        assertThat(ProtocolVersion.V2025_06_18.atLeast(ProtocolVersion.V2025_06_18)).isTrue();
        assertThat(ProtocolVersion.V2025_03_26.atLeast(ProtocolVersion.V2025_06_18)).isFalse();
        assertThat(ProtocolVersion.V2026_07_28.atLeast(ProtocolVersion.V2024_11_05)).isTrue();
    }

    @Test
    void supportedIdsAreEveryRevisionNewestFirst() {
        assertThat(ProtocolVersion.supportedIds()).containsExactly("2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26",
                "2024-11-05");
    }
}
