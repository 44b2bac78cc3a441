package dev.tern.bench;

import java.time.Duration;
import java.util.Locale;

/** Formatting of figures for people: thousands separators, sensible decimals. */
final class Figures {
    private Figures() {
    }

    static String number(double value) {
        if (value == Math.rint(value) && Math.abs(value) < 1e15) {
            return String.format(Locale.ROOT, "%,d", (long) value);
        }
        return Math.abs(value) >= 100 ? String.format(Locale.ROOT, "%,.0f", value)
                : String.format(Locale.ROOT, "%.2f", value);
    }

    /** Milliseconds with three significant-ish decimals: 0.123, 1.23, 12.3, 123. */
    static String ms(double millis) {
        if (Double.isNaN(millis)) {
            return "–";
        }
        double a = Math.abs(millis);
        String f = a >= 100 ? "%,.0f" : a >= 10 ? "%.1f" : a >= 1 ? "%.2f" : "%.3f";
        return String.format(Locale.ROOT, f, millis);
    }

    static String micros(double micros) {
        double a = Math.abs(micros);
        return String.format(Locale.ROOT, a >= 100 ? "%,.0f" : "%.1f", micros);
    }

    static String bytes(long bytes) {
        if (bytes >= 1L << 30) {
            return String.format(Locale.ROOT, "%.2f GiB", bytes / (double) (1L << 30));
        }
        if (bytes >= 1L << 20) {
            return String.format(Locale.ROOT, "%.1f MiB", bytes / (double) (1L << 20));
        }
        return String.format(Locale.ROOT, "%,d KiB", bytes >> 10);
    }

    static String ratio(double value) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            return "–";
        }
        if (value >= 100) {
            return String.format(Locale.ROOT, "%,.0f×", value);
        }
        if (value >= 10) {
            return String.format(Locale.ROOT, "%.1f×", value);
        }
        return value >= 0.1 || value == 0 ? String.format(Locale.ROOT, "%.2f×", value)
                : String.format(Locale.ROOT, "%.2g×", value);
    }

    static String duration(Duration d) {
        long ms = d.toMillis();
        if (ms % 1000 == 0) {
            return (ms / 1000) + "s";
        }
        return ms + "ms";
    }

    static double round3(double v) {
        return Math.round(v * 1000d) / 1000d;
    }
}
