package dev.tern.protocol;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import tools.jackson.core.SerializableString;
import tools.jackson.core.io.JsonStringEncoder;
import tools.jackson.databind.node.StringNode;

/**
 * JSON text with its UTF-8, which a generator copies as it is: a value the mapper serialized once is written both as
 * a member and, escaped from the same bytes, as a text block's string, without being encoded from characters again.
 */
final class Utf8Json implements SerializableString {
    private final byte[] utf8;
    private final String text;

    private Utf8Json(byte[] utf8, String text) {
        this.utf8 = utf8;
        this.text = text;
    }

    /** {@code json}, well-formed (no lone surrogates), with its UTF-8. */
    static Utf8Json of(String json) {
        return new Utf8Json(json.getBytes(StandardCharsets.UTF_8), json);
    }

    /** {@code json} with its UTF-8, every lone surrogate in it replaced by U+FFFD. */
    static Utf8Json wellFormed(String json) {
        byte[] utf8 = json.getBytes(StandardCharsets.UTF_8);
        // The encoder writes a lone surrogate as '?': without one in the bytes, there was none to replace.
        if (!contains(utf8, (byte) '?')) {
            return new Utf8Json(utf8, json);
        }
        String checked = JsonRpcCodec.wellFormed(json);
        return checked == json ? new Utf8Json(utf8, json) : of(checked);
    }

    private static boolean contains(byte[] bytes, byte b) {
        for (byte x : bytes) {
            if (x == b) {
                return true;
            }
        }
        return false;
    }

    /** A string node of this JSON's text that Tern's codec writes by escaping these bytes ({@link #utf8()}). */
    StringNode asStringNode() {
        return new Text(this);
    }

    byte[] utf8() {
        return utf8;
    }

    // -------------------------------------------------------------------- SerializableString: written raw

    @Override
    public String getValue() {
        return text;
    }

    @Override
    public String toString() {
        return text;
    }

    @Override
    public int charLength() {
        return text.length();
    }

    @Override
    public byte[] asUnquotedUTF8() {
        return utf8;
    }

    @Override
    public int appendUnquotedUTF8(byte[] buffer, int offset) {
        return copy(utf8, buffer, offset);
    }

    @Override
    public int writeUnquotedUTF8(OutputStream out) throws IOException {
        out.write(utf8);
        return utf8.length;
    }

    @Override
    public int putUnquotedUTF8(ByteBuffer buffer) {
        return put(utf8, buffer);
    }

    @Override
    public int appendUnquoted(char[] buffer, int offset) {
        if (offset + text.length() > buffer.length) {
            return -1;
        }
        text.getChars(0, text.length(), buffer, offset);
        return text.length();
    }

    // The escaped forms, for a generator that writes this as a string value rather than raw: never on Tern's path.

    @Override
    public char[] asQuotedChars() {
        return JsonStringEncoder.getInstance().quoteAsCharArray(text);
    }

    @Override
    public byte[] asQuotedUTF8() {
        return JsonStringEncoder.getInstance().quoteAsUTF8(text);
    }

    @Override
    public int appendQuotedUTF8(byte[] buffer, int offset) {
        return copy(asQuotedUTF8(), buffer, offset);
    }

    @Override
    public int appendQuoted(char[] buffer, int offset) {
        char[] quotedChars = asQuotedChars();
        if (offset + quotedChars.length > buffer.length) {
            return -1;
        }
        System.arraycopy(quotedChars, 0, buffer, offset, quotedChars.length);
        return quotedChars.length;
    }

    @Override
    public int writeQuotedUTF8(OutputStream out) throws IOException {
        byte[] quotedBytes = asQuotedUTF8();
        out.write(quotedBytes);
        return quotedBytes.length;
    }

    @Override
    public int putQuotedUTF8(ByteBuffer buffer) {
        return put(asQuotedUTF8(), buffer);
    }

    /** {@code bytes} into {@code buffer} at {@code offset}: their count, or -1 when they do not fit. */
    private static int copy(byte[] bytes, byte[] buffer, int offset) {
        if (offset + bytes.length > buffer.length) {
            return -1;
        }
        System.arraycopy(bytes, 0, buffer, offset, bytes.length);
        return bytes.length;
    }

    /** {@code bytes} into {@code buffer}: their count, or -1 when they do not fit. */
    private static int put(byte[] bytes, ByteBuffer buffer) {
        if (bytes.length > buffer.remaining()) {
            return -1;
        }
        buffer.put(bytes);
        return bytes.length;
    }

    /**
     * A plain string node everywhere (equal to any string node of the same text, read as one) that Tern's codec writes
     * from the UTF-8 of the JSON it repeats.
     */
    static final class Text extends StringNode {
        private final Utf8Json json;

        private Text(Utf8Json json) {
            super(json.getValue());
            this.json = json;
        }

        byte[] utf8() {
            return json.utf8;
        }
    }
}
