package dev.tern.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.junit.jupiter.api.Test;

class SharedSecretsTest {
    private static final String OLD = "the old secret of thirty-two bytes or more";
    private static final String NEW = "the new secret of thirty-two bytes or more";

    @Test
    void nodesWithTheSameSecretDeriveTheSameKeysAndEachPurposeItsOwn() {
        SharedSecrets one = SharedSecrets.of(List.of(NEW));
        SharedSecrets other = SharedSecrets.of(List.of(NEW));

        assertThat(one.requestStateKeys()).hasSize(1);
        assertThat(one.requestStateKeys().get(0)).isEqualTo(other.requestStateKeys().get(0)).hasSize(32);
        assertThat(one.sessionIdKeys().get(0)).isEqualTo(other.sessionIdKeys().get(0))
                .isNotEqualTo(one.requestStateKeys().get(0));
    }

    @Test
    void aRotationUsesTheFirstSecretAndKeepsTheOthers() {
        SharedSecrets rotating = SharedSecrets.of(List.of(NEW, OLD));

        assertThat(rotating.requestStateKeys().get(0)).isEqualTo(SharedSecrets.of(List.of(NEW)).requestStateKeys().get(0));
        assertThat(rotating.requestStateKeys().get(1)).isEqualTo(SharedSecrets.of(List.of(OLD)).requestStateKeys().get(0));
    }

    @Test
    void shortSecretsAreRefusedAndNoneIsAbsent() {
        assertThatThrownBy(() -> SharedSecrets.of(List.of("short"))).hasMessageContaining("32 bytes");
        assertThat(SharedSecrets.of(List.of()).present()).isFalse();
    }

    @Test
    void ternSecretInTheEnvironmentIsReadAsCommaSeparatedSecrets() {
        String[] args = {"serve", "--port", "0", "--redis", "redis://127.0.0.1:1"};
        assertThat(Main.run(java.util.Map.of("TERN_SECRET", NEW + ",short"), args))
                .as("the second secret is too short: refused before anything starts").isEqualTo(2);
        assertThat(Main.run(java.util.Map.of("TERN_SECRET", NEW + "," + OLD), args))
                .as("both secrets taken; then Redis cannot be reached").isEqualTo(1);
        assertThat(Main.run(java.util.Map.of(), args)).as("no secret").isEqualTo(2);
    }
}
