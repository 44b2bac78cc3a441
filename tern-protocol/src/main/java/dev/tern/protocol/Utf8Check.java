package dev.tern.protocol;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The checks Jackson leaves to us: MCP messages are UTF-8 without a byte-order mark, and a string may not hold a
 * lone UTF-16 surrogate, neither as raw bytes nor as an escaped code unit. One linear pass over the bytes.
 */
final class Utf8Check {
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGH_BITS = 0x8080808080808080L;

    private Utf8Check() {
    }

    /** Returns what is wrong with the encoding, or {@code null} when nothing is. */
    static String problem(byte[] b, int offset, int length) {
        int end = offset + length;
        if (length >= 3 && (b[offset] & 0xFF) == 0xEF && (b[offset + 1] & 0xFF) == 0xBB && (b[offset + 2] & 0xFF) == 0xBF) {
            return "Parse error: byte-order mark found; messages must be UTF-8 without a BOM";
        }
        if (length >= 2 && ((b[offset] & 0xFF) == 0xFE || (b[offset] & 0xFF) == 0xFF)) {
            return "Parse error: UTF-16 or UTF-32 text; messages must be UTF-8";
        }
        boolean expectLowSurrogate = false;
        int i = offset;
        while (i < end) {
            if (!expectLowSurrogate && end - i >= Long.BYTES && isPlain((long) LONGS.get(b, i))) {
                i += Long.BYTES;
                continue;
            }
            int c = b[i] & 0xFF;
            if (c == 0) {
                return "Parse error: NUL byte; messages must be UTF-8 JSON";
            }
            if (c == 0xED && i + 1 < end && (b[i + 1] & 0xFF) >= 0xA0) {
                return "Parse error: UTF-8 encoded surrogate";
            }
            if (c == '\\' && i + 1 < end) {
                if (b[i + 1] == 'u' && i + 5 < end) {
                    int unit = hex4(b, i + 2);
                    boolean high = unit >= 0xD800 && unit <= 0xDBFF;
                    boolean low = unit >= 0xDC00 && unit <= 0xDFFF;
                    if (expectLowSurrogate && !low) {
                        return "Parse error: lone surrogate in a string";
                    }
                    if (low && !expectLowSurrogate) {
                        return "Parse error: lone surrogate in a string";
                    }
                    expectLowSurrogate = high;
                    i += 6;
                    continue;
                }
                if (expectLowSurrogate) {
                    return "Parse error: lone surrogate in a string";
                }
                i += 2;
                continue;
            }
            if (expectLowSurrogate) {
                return "Parse error: lone surrogate in a string";
            }
            i++;
        }
        return expectLowSurrogate ? "Parse error: lone surrogate in a string" : null;
    }

    /** Whether none of the eight bytes in {@code word} is a NUL, a backslash or part of a multi-byte character. */
    private static boolean isPlain(long word) {
        long backslashes = word ^ (ONES * '\\');
        return ((word | hasZeroByte(word) | hasZeroByte(backslashes)) & HIGH_BITS) == 0;
    }

    /** The high bit of each byte set where {@code word}'s byte is zero (and maybe above one): never 0 when one is. */
    private static long hasZeroByte(long word) {
        return (word - ONES) & ~word;
    }

    private static int hex4(byte[] b, int at) {
        int value = 0;
        for (int k = 0; k < 4; k++) {
            int d = Character.digit(b[at + k], 16);
            if (d < 0) {
                return -1;
            }
            value = (value << 4) | d;
        }
        return value;
    }
}
