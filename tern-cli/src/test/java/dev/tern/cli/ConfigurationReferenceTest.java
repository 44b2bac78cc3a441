package dev.tern.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ConfigurationReferenceTest {

    @Test
    void docsConfigurationIsWhatTheCommandsOptionsSay() throws IOException {
        Path file = Path.of(System.getProperty("tern.root", "..")).resolve("docs/configuration.md");
        String generated = ConfigurationReference.markdown();
        if (Boolean.getBoolean("tern.docs.write")) {
            Files.writeString(file, generated, StandardCharsets.UTF_8);
        }
        assertThat(Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "")
                .as("docs/configuration.md is out of date; regenerate it with: " + ConfigurationReference.REGENERATE)
                .isEqualTo(generated);
    }
}
