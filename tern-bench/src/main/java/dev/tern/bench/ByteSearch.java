package dev.tern.bench;

/** Finding bytes in the lines the stdio tools read, without decoding them. */
final class ByteSearch {
    private ByteSearch() {
    }

    /** Where {@code needle} first occurs in the first {@code length} bytes of {@code haystack}, or -1. */
    static int indexOf(byte[] haystack, int length, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
