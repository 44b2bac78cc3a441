package dev.tern.bench.targets;

import java.util.Locale;

/** How a target speaks HTTP. */
public enum HttpVersion {
    HTTP_1_1("HTTP/1.1"), H2C("h2c"), H2("h2");

    private final String label;

    HttpVersion(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    /** {@code 1.1}, {@code h2c} or {@code h2}. */
    public static HttpVersion parse(String text) {
        return switch (text.strip().toLowerCase(Locale.ROOT)) {
            case "1.1", "http/1.1", "h1", "http1" -> HTTP_1_1;
            case "h2c" -> H2C;
            case "h2", "2" -> H2;
            default -> throw new IllegalArgumentException("http: \"" + text + "\" (expected: 1.1, h2c or h2)");
        };
    }
}
