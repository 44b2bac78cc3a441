package dev.tern.bench;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Durations as people write them on a command line: {@code 30s}, {@code 500ms}, {@code 2m}, {@code 1.5s}, {@code 90}. */
public final class Durations {
    private static final Pattern FORM = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ms|s|m|h)?");

    private Durations() {
    }

    /** Parses {@code N[ms|s|m|h]} (seconds without a unit) or an ISO-8601 duration ({@code PT30S}). */
    public static Duration parse(String text) {
        String t = text == null ? "" : text.strip().toLowerCase(java.util.Locale.ROOT);
        if (t.startsWith("p")) {
            try {
                return Duration.parse(t.toUpperCase(java.util.Locale.ROOT));
            } catch (java.time.format.DateTimeParseException e) {
                throw new IllegalArgumentException("duration: \"" + text + "\" (expected: e.g. 30s, 500ms, 2m or PT30S)");
            }
        }
        Matcher m = FORM.matcher(t);
        if (!m.matches()) {
            throw new IllegalArgumentException("duration: \"" + text + "\" (expected: e.g. 30s, 500ms, 2m or PT30S)");
        }
        double n = Double.parseDouble(m.group(1));
        double nanosPerUnit = switch (m.group(2) == null ? "s" : m.group(2)) {
            case "ms" -> 1e6;
            case "m" -> 60e9;
            case "h" -> 3600e9;
            default -> 1e9;
        };
        return Duration.ofNanos(Math.round(n * nanosPerUnit));
    }
}
