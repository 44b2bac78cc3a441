package dev.tern.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Random;

import org.junit.jupiter.api.Test;

/**
 * The encoding check, which skips eight plain bytes at a time, against a byte-at-a-time statement of the same rules
 * on random mixes of the bytes and escapes it looks for, at every alignment.
 */
class Utf8CheckTest {
    private static final String NUL = "Parse error: NUL byte; messages must be UTF-8 JSON";
    private static final String ENCODED_SURROGATE = "Parse error: UTF-8 encoded surrogate";
    private static final String LONE_SURROGATE = "Parse error: lone surrogate in a string";
    private static final String[] FRAGMENTS = {
        "a", "plain text", "\"", "\\", "\\\\", "\\n", "\\u", "\\u00e9", "\\uD83D", "\\uDE00", "\\udbff", "\\uDC0",
        "\\uZZZZ", "\u0000", "é", "😀", "\uD7FF", "{\"key\":", "12345678"};
    private static final byte[] RAW = {(byte) 0xED, (byte) 0xA0, (byte) 0x9F, (byte) 0x80, (byte) 0xFF};

    @Test
    void agreesWithTheRulesByteByByteOnRandomText() {
        Random random = new Random(20261202);
        int problems = 0;
        for (int round = 0; round < 50_000; round++) {
            byte[] text = randomText(random);
            int offset = random.nextInt(9);
            byte[] buffer = new byte[offset + text.length + random.nextInt(9)];
            java.util.Arrays.fill(buffer, (byte) '\\');
            System.arraycopy(text, 0, buffer, offset, text.length);
            String expected = byteByByte(text);
            if (expected != null) {
                problems++;
            }
            assertThat(Utf8Check.problem(buffer, offset, text.length))
                    .as("%s", HexFormat.ofDelimiter(" ").formatHex(text))
                    .isEqualTo(expected);
        }
        assertThat(problems).as("random texts with a problem").isBetween(5_000, 45_000);
    }

    @Test
    void findsAProblemInAnyPositionOfALongPlainText() {
        String plain = "{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":{\"name\":\"get_user\"}}";
        for (int at = 0; at <= plain.length(); at++) {
            for (String bad : new String[] {"\u0000", "\\uDE00", "\\uD83Dx"}) {
                byte[] text = (plain.substring(0, at) + bad + plain.substring(at)).getBytes(StandardCharsets.UTF_8);
                assertThat(Utf8Check.problem(text, 0, text.length)).as("%s at %d", bad, at).isNotNull()
                        .isEqualTo(byteByByte(text));
            }
        }
        byte[] clean = plain.getBytes(StandardCharsets.UTF_8);
        assertThat(Utf8Check.problem(clean, 0, clean.length)).isNull();
    }

    private static byte[] randomText(Random random) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int parts = random.nextInt(12);
        for (int i = 0; i < parts; i++) {
            if (random.nextInt(10) == 0) {
                out.write(RAW[random.nextInt(RAW.length)]);
            } else {
                out.writeBytes(FRAGMENTS[random.nextInt(FRAGMENTS.length)].getBytes(StandardCharsets.UTF_8));
            }
        }
        return out.toByteArray();
    }

    /** The rules one byte, or one escape, at a time (the byte-order-mark checks at the start left out). */
    private static String byteByByte(byte[] b) {
        if (b.length >= 2 && ((b[0] & 0xFF) == 0xFE || (b[0] & 0xFF) == 0xFF)) {
            return "Parse error: UTF-16 or UTF-32 text; messages must be UTF-8";
        }
        boolean highPending = false;
        int i = 0;
        while (i < b.length) {
            int c = b[i] & 0xFF;
            if (c == 0) {
                return NUL;
            }
            if (c == 0xED && i + 1 < b.length && (b[i + 1] & 0xFF) >= 0xA0) {
                return ENCODED_SURROGATE;
            }
            int unit = -1;
            int width = 1;
            if (c == '\\' && i + 1 < b.length) {
                boolean unicode = b[i + 1] == 'u' && i + 5 < b.length;
                width = unicode ? 6 : 2;
                unit = unicode ? hexOrNegative(new String(b, i + 2, 4, StandardCharsets.ISO_8859_1)) : -1;
            }
            boolean low = unit >= 0xDC00 && unit <= 0xDFFF;
            if (highPending != low) {
                return LONE_SURROGATE;
            }
            highPending = unit >= 0xD800 && unit <= 0xDBFF;
            i += width;
        }
        return highPending ? LONE_SURROGATE : null;
    }

    private static int hexOrNegative(String digits) {
        return digits.chars().allMatch(HexFormat::isHexDigit) ? HexFormat.fromHexDigits(digits) : -1;
    }
}
