package dev.tern.cli;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import picocli.CommandLine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DurationConverterTest {
    private final DurationConverter converter = new DurationConverter();

    @Test
    void readsUnitsAndIso8601Alike() {
        assertThat(converter.convert("5s")).isEqualTo(Duration.ofSeconds(5));
        assertThat(converter.convert("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(converter.convert("2m")).isEqualTo(Duration.ofMinutes(2));
        assertThat(converter.convert("1h")).isEqualTo(Duration.ofHours(1));
        assertThat(converter.convert("PT5S")).isEqualTo(Duration.ofSeconds(5));
        assertThat(converter.convert("pt1m30s")).isEqualTo(Duration.ofSeconds(90));
    }

    @Test
    void somethingElseIsRefusedWithTheFormsItTakes() {
        for (String bad : new String[] {"5 seconds", "PTx", "", "-5s", "PT-5S"}) {
            assertThatThrownBy(() -> converter.convert(bad)).as(bad)
                    .isInstanceOf(CommandLine.TypeConversionException.class)
                    .hasMessageContaining("'" + bad + "'")
                    .hasMessageContaining("e.g. 5s, 500ms, 2m or PT5S");
        }
    }

    @Test
    void everyDurationOptionOfServeAndCallReadsThroughIt() {
        for (String name : new String[] {"serve", "call"}) {
            CommandLine command = Main.commandLine(java.util.List.of(name)).getSubcommands().get(name);
            command.getCommandSpec().options().stream()
                    .filter(option -> option.type() == Duration.class)
                    .forEach(option -> assertThat(option.converters()).as(name + " " + option.longestName())
                            .hasAtLeastOneElementOfType(DurationConverter.class));
        }
    }
}
