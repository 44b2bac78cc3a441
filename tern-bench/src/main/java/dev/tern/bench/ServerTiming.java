package dev.tern.bench;

import java.util.Locale;

/**
 * The server's own account of where a request's time went, from a {@code Server-Timing} response header such as
 * {@code parse;dur=0.010, queue;dur=0.004, exec;dur=0.051, ser;dur=0.008} (durations in milliseconds, as the header's
 * specification says). Each figure is in nanoseconds, or -1 when the header did not name it.
 */
public record ServerTiming(long parseNanos, long queueNanos, long execNanos, long serializeNanos) {

    /** Parses a {@code Server-Timing} header value; returns null when it names none of the four phases. */
    public static ServerTiming parse(String header) {
        if (header == null || header.isBlank()) {
            return null;
        }
        long parse = -1;
        long queue = -1;
        long exec = -1;
        long ser = -1;
        for (String metric : header.split(",")) {
            String[] parts = metric.split(";");
            String name = parts[0].strip().toLowerCase(Locale.ROOT);
            long nanos = -1;
            for (int i = 1; i < parts.length; i++) {
                String param = parts[i].strip();
                if (param.regionMatches(true, 0, "dur=", 0, 4)) {
                    nanos = millisToNanos(param.substring(4).strip());
                }
            }
            if (nanos < 0) {
                continue;
            }
            switch (name) {
                case "parse" -> parse = nanos;
                case "queue" -> queue = nanos;
                case "exec", "execute" -> exec = nanos;
                case "ser", "serialize" -> ser = nanos;
                default -> { }
            }
        }
        return parse < 0 && queue < 0 && exec < 0 && ser < 0 ? null : new ServerTiming(parse, queue, exec, ser);
    }

    private static long millisToNanos(String value) {
        try {
            double millis = Double.parseDouble(value.startsWith("\"") ? value.replace("\"", "") : value);
            return millis >= 0 && Double.isFinite(millis) ? Math.round(millis * 1_000_000d) : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
