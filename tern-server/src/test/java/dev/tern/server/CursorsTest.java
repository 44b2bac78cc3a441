package dev.tern.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.tern.protocol.ErrorCodes;
import dev.tern.protocol.McpException;

class CursorsTest {
    private static final List<Integer> SEVEN = IntStream.range(0, 7).boxed().toList();

    private static String b64(String s) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(s.getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    void pagesCoverTheListOnceInOrder() {
        List<Integer> seen = new ArrayList<>();
        String cursor = null;
        int pages = 0;
        do {
            Cursors.Page<Integer> page = Cursors.page(SEVEN, cursor, 3);
            assertThat(page.items().size()).isBetween(1, 3);
            seen.addAll(page.items());
            cursor = page.nextCursor();
            pages++;
        } while (cursor != null);
        assertThat(seen).isEqualTo(SEVEN);
        assertThat(pages).isEqualTo(3);
    }

    @Test
    void theLastPageHasNoNextCursor() {
        assertThat(Cursors.page(SEVEN, null, 7).nextCursor()).isNull();
        assertThat(Cursors.page(SEVEN, null, 100).nextCursor()).isNull();
        assertThat(Cursors.page(List.of(), null, 10).items()).isEmpty();
        assertThat(Cursors.page(List.of(), null, 10).nextCursor()).isNull();
    }

    @Test
    void encodeAndDecodeRoundTrip() {
        for (int offset : new int[] {0, 1, 99, 12345, Integer.MAX_VALUE}) {
            assertThat(Cursors.decode(Cursors.encode(offset))).isEqualTo(offset);
        }
    }

    @Test
    void cursorsAreOpaqueUrlSafeText() {
        String c = Cursors.encode(42);
        assertThat(c).matches("[A-Za-z0-9_-]+");
        assertThat(c).doesNotContain("42");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "garbage", "!!!", "bzE6Mw==x", "%%%", "o1:3", "AAAA"})
    void tamperedCursorsAreInvalidParams(String cursor) {
        assertThatThrownBy(() -> Cursors.page(SEVEN, cursor, 3)).isInstanceOfSatisfying(McpException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCodes.INVALID_PARAMS));
    }

    @Test
    void aCursorWithAnotherPrefixIsRefused() {
        assertThatThrownBy(() -> Cursors.page(SEVEN, b64("o2:3"), 3)).isInstanceOf(McpException.class);
        assertThatThrownBy(() -> Cursors.page(SEVEN, b64("3"), 3)).isInstanceOf(McpException.class);
    }

    @Test
    void aNegativeOffsetIsRefused() {
        assertThatThrownBy(() -> Cursors.page(SEVEN, b64("o1:-1"), 3)).isInstanceOfSatisfying(McpException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCodes.INVALID_PARAMS));
    }

    @Test
    void aNonNumericOrOverflowingOffsetIsRefused() {
        assertThatThrownBy(() -> Cursors.page(SEVEN, b64("o1:abc"), 3)).isInstanceOf(McpException.class);
        assertThatThrownBy(() -> Cursors.page(SEVEN, b64("o1:99999999999"), 3)).isInstanceOf(McpException.class);
        assertThatThrownBy(() -> Cursors.page(SEVEN, b64("o1:"), 3)).isInstanceOf(McpException.class);
    }

    @Test
    void anOffsetPastTheEndIsRefused() {
        assertThatThrownBy(() -> Cursors.page(SEVEN, Cursors.encode(8), 3)).isInstanceOfSatisfying(McpException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCodes.INVALID_PARAMS));
        assertThatThrownBy(() -> Cursors.page(SEVEN, Cursors.encode(Integer.MAX_VALUE), 3)).isInstanceOf(McpException.class);
    }

    @Test
    void aCursorAtTheEndGivesAnEmptyLastPage() {
        // the list may have shrunk since the cursor was issued
        Cursors.Page<Integer> page = Cursors.page(SEVEN, Cursors.encode(7), 3);
        assertThat(page.items()).isEmpty();
        assertThat(page.nextCursor()).isNull();
    }

    @Test
    void aVeryLongCursorIsRefusedWithoutDecoding() {
        assertThatThrownBy(() -> Cursors.page(SEVEN, "A".repeat(1_000_000), 3)).isInstanceOf(McpException.class);
    }

    @Test
    void theErrorDoesNotEchoAHugeCursor() {
        String huge = "B".repeat(100_000);
        assertThatThrownBy(() -> Cursors.page(SEVEN, huge, 3)).isInstanceOf(McpException.class);
    }
}
