package dev.tern.server;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;

import dev.tern.protocol.McpException;

/** Opaque pagination cursors: an offset into a list, base64url-encoded with a version prefix. */
final class Cursors {
    private static final String PREFIX = "o1:";

    private Cursors() {
    }

    /** One page of a list and the cursor of the next, or {@code null} at the end. */
    record Page<T>(List<T> items, String nextCursor) {
    }

    static <T> Page<T> page(List<T> all, String cursor, int pageSize) {
        int offset = cursor == null ? 0 : decode(cursor);
        if (offset > all.size()) {
            throw McpException.invalidParams("Invalid cursor: past the end of the list");
        }
        int end = Math.min(all.size(), offset + pageSize);
        String next = end < all.size() ? encode(end) : null;
        return new Page<>(all.subList(offset, end), next);
    }

    static String encode(int offset) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString((PREFIX + offset).getBytes(StandardCharsets.US_ASCII));
    }

    static int decode(String cursor) {
        try {
            if (cursor.length() > 64) {
                throw new IllegalArgumentException("too long");
            }
            String text = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.US_ASCII);
            if (!text.startsWith(PREFIX)) {
                throw new IllegalArgumentException("unknown cursor format");
            }
            int offset = Integer.parseInt(text.substring(PREFIX.length()));
            if (offset < 0) {
                throw new IllegalArgumentException("negative offset");
            }
            return offset;
        } catch (IllegalArgumentException e) {
            throw McpException.invalidParams("Invalid cursor: " + cursor);
        }
    }
}
