package dev.tern.transport.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

class SessionIdsTest {
    private static final byte[] OLD = "an old key of thirty-two bytes..".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private static final byte[] NEW = "a new key of at least thirty-two bytes".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    @Test
    void withoutKeysIdsAre256RandomBitsAndAnyIdIsPlausible() {
        SessionIds ids = new SessionIds(List.of());
        String id = ids.next();
        assertThat(id).hasSize(43).matches("[A-Za-z0-9_-]+").isNotEqualTo(ids.next());
        assertThat(ids.plausible("made-up")).isTrue();
    }

    /** A character of the id's alphabet other than {@code c}, so that a changed id never equals the real one. */
    private static char otherThan(char c) {
        return c == 'A' ? 'B' : 'A';
    }

    @Test
    void signedIdsAreAcceptedByEveryNodeWithTheKeyAndMadeUpOnesAreNot() {
        String id = new SessionIds(List.of(NEW)).next();
        SessionIds other = new SessionIds(List.of(NEW));

        assertThat(other.plausible(id)).isTrue();
        int signature = id.indexOf('.') + 1;
        assertThat(other.plausible(id.substring(0, signature) + otherThan(id.charAt(signature))
                + id.substring(signature + 1))).as("its signature changed").isFalse();
        assertThat(other.plausible(otherThan(id.charAt(0)) + id.substring(1))).as("its random part changed").isFalse();
        assertThat(other.plausible("no-dot")).isFalse();
        assertThat(other.plausible("!!.??")).isFalse();
        assertThat(new SessionIds(List.of(OLD)).plausible(id)).isFalse();
    }

    @Test
    void duringARotationIdsSignedWithTheOldKeyStayValidAndNewOnesUseTheNewKey() {
        String old = new SessionIds(List.of(OLD)).next();
        SessionIds rotated = new SessionIds(List.of(NEW, OLD));

        assertThat(rotated.plausible(old)).isTrue();
        assertThat(new SessionIds(List.of(NEW)).plausible(rotated.next())).isTrue();
        assertThat(SessionManager.wellFormed(rotated.next())).isTrue();
    }
}
