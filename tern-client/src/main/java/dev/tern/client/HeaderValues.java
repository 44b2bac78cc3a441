package dev.tern.client;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/** 2026-07-28 header value encoding: plain when header-safe ASCII, otherwise the {@code =?base64?…?=} sentinel. */
final class HeaderValues {
    private HeaderValues() {
    }

    static String encode(String value) {
        boolean plain = !value.isEmpty() && value.charAt(0) != ' ' && value.charAt(value.length() - 1) != ' '
                && !(value.startsWith("=?base64?") && value.endsWith("?="));
        for (int i = 0; plain && i < value.length(); i++) {
            char c = value.charAt(i);
            plain = c >= 0x20 && c <= 0x7E;
        }
        if (plain) {
            return value;
        }
        return "=?base64?" + Base64.getEncoder().encodeToString(value.getBytes(StandardCharsets.UTF_8)) + "?=";
    }
}
