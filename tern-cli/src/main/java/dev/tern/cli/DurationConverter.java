package dev.tern.cli;

import java.time.DateTimeException;
import java.time.Duration;

import dev.tern.bench.Durations;
import picocli.CommandLine;

/**
 * Reads every duration option of the {@code tern} command, from the command line, the environment or the config
 * file, in one syntax: {@code 5s}, {@code 500ms}, {@code 2m}, {@code 1h}, or ISO-8601 ({@code PT5S}).
 */
final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    /** The forms a duration option takes, for help texts and error messages. */
    static final String FORMS = "e.g. 5s, 500ms, 2m or PT5S";

    @Override
    public Duration convert(String value) {
        Duration duration;
        try {
            duration = Durations.parse(value);
        } catch (IllegalArgumentException | DateTimeException e) {
            throw new CommandLine.TypeConversionException("'" + value + "' is not a duration (" + FORMS + ")");
        }
        if (duration.isNegative()) {
            throw new CommandLine.TypeConversionException("'" + value + "' is negative (" + FORMS + ")");
        }
        return duration;
    }
}
