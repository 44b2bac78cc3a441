package dev.tern.protocol;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import tools.jackson.core.JsonGenerator;
import tools.jackson.core.exc.JacksonIOException;
import tools.jackson.core.util.BufferRecycler;
import tools.jackson.core.util.JsonRecyclerPools;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.BooleanNode;
import tools.jackson.databind.node.IntNode;
import tools.jackson.databind.node.LongNode;
import tools.jackson.databind.node.NullNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.node.POJONode;
import tools.jackson.databind.node.StringNode;
import tools.jackson.databind.util.RawValue;

/**
 * Writes the reply to a tool call whose result repeats a value serialized once ({@link Json#rawJson}) straight to
 * bytes, byte for byte as {@link JsonRpcCodec}'s generator writes it, without a generator: the text block is escaped
 * from the value's UTF-8 and the structured content copied. It takes only trees of plain parts (objects, arrays,
 * ASCII strings, booleans, nulls, integers, raw JSON) up to a few kilobytes; for anything else it writes nothing and
 * the generator writes the reply.
 */
final class ResultBytesWriter {
    /** The kind of pooled buffer the reply is put together in: the generator's own, of 8,000 bytes. */
    private static final int BUFFER = BufferRecycler.BYTE_WRITE_ENCODING_BUFFER;
    /** A larger reply is left to the generator, so that the pool never keeps a larger buffer. */
    private static final int MAX_BYTES = 8000;
    private static final int MAX_DEPTH = 32;
    private static final byte[] HEAD = "{\"jsonrpc\":\"2.0\",\"id\":".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] RESULT = ",\"result\":".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NULL = "null".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] TRUE = "true".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] FALSE = "false".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] MIN_LONG = Long.toString(Long.MIN_VALUE).getBytes(StandardCharsets.US_ASCII);
    /**
     * Each ASCII character as the shared mapper's generator writes it inside a string ({@code null}: as itself), taken
     * from that generator so that the two cannot differ; bytes of 0x80 and up are written as they are.
     */
    private static final byte[][] ESCAPES = escapesOfTheGenerator();
    /** How many bytes each byte value grows by when escaped, indexed by the byte as an unsigned value. */
    private static final int[] GROWTH = new int[256];
    private static final int LONGEST_ESCAPE;

    static {
        for (int c = 0; c < 128; c++) {
            if (ESCAPES[c] != null && ESCAPES[c].length < 2) {
                throw new IllegalStateException("an escape of one byte for U+" + Integer.toHexString(c));
            }
            GROWTH[c] = ESCAPES[c] == null ? 0 : ESCAPES[c].length - 1;
        }
        LONGEST_ESCAPE = 1 + Arrays.stream(GROWTH).max().orElseThrow();
    }

    /**
     * Object keys already quoted, by the key's hash: a reply repeats the same few keys every time. A slot is filled once
     * and kept, so that a stream of distinct keys costs no allocation; a key whose slot is taken is written as before.
     * Two threads may fill a slot at once: either record is whole, since its fields are final.
     */
    private static final QuotedKey[] KEYS = new QuotedKey[256];
    private static final int MAX_KEY_CACHED = 64;

    private record QuotedKey(String key, byte[] quoted) {
    }

    private ResultBytesWriter() {
    }

    /**
     * Writes {@code {"jsonrpc":"2.0","id":…,"result":…}} to {@code out} and returns true, or returns false having
     * written nothing when {@code result} holds a part the generator must write.
     */
    static boolean write(RequestId id, JsonNode result, OutputStream out) {
        BufferRecycler recycler = JsonRecyclerPools.sharedHybridPool().acquireAndLinkPooled();
        byte[] buffer = recycler.allocByteBuffer(BUFFER, MAX_BYTES);
        try {
            // One pass into the pooled buffer; a part this does not write, or a reply too large, gives up (-1).
            int at = put(HEAD, buffer, 0);
            at = writeId(id, buffer, at);
            at = put(RESULT, buffer, at);
            at = putByte('}', buffer, writeNode(result, buffer, at, 0));
            if (at < 0) {
                return false;
            }
            out.write(buffer, 0, at);
            return true;
        } catch (IOException e) {
            throw JacksonIOException.construct(e);
        } finally {
            recycler.releaseByteBuffer(BUFFER, buffer);
            recycler.releaseToPool();
        }
    }

    // ---------------------------------------------------------------- each returns where it stopped, -1 for give up

    private static int writeId(RequestId id, byte[] buffer, int at) {
        return switch (id) {
            case RequestId.NumberId n -> putDigits(n.value(), buffer, at);
            case RequestId.StringId s -> putString(s.value(), buffer, at);
        };
    }

    private static int writeNode(JsonNode node, byte[] buffer, int at, int depth) {
        if (at < 0 || depth > MAX_DEPTH) {
            return -1;
        }
        if (node instanceof ObjectNode object) {
            return writeObject(object, buffer, at, depth);
        } else if (node instanceof ArrayNode array) {
            return writeArray(array, buffer, at, depth);
        } else if (node instanceof Utf8Json.Text text) {
            return putEscaped(text.utf8(), buffer, at);
        } else if (node instanceof StringNode string) {
            return putString(string.stringValue(), buffer, at);
        } else if (node instanceof POJONode pojo) {
            return pojo.getPojo() instanceof RawValue raw && raw.rawValue() instanceof Utf8Json json
                    ? put(json.utf8(), buffer, at) : -1;
        } else if (node instanceof BooleanNode bool) {
            return put(bool.booleanValue() ? TRUE : FALSE, buffer, at);
        } else if (node instanceof NullNode) {
            return put(NULL, buffer, at);
        } else if (node instanceof IntNode number) {
            return putDigits(number.intValue(), buffer, at);
        } else if (node instanceof LongNode number) {
            return putDigits(number.longValue(), buffer, at);
        }
        return -1;
    }

    private static int writeObject(ObjectNode object, byte[] buffer, int at, int depth) {
        at = putByte('{', buffer, at);
        boolean first = true;
        for (var member : object.properties()) {
            if (!first) {
                at = putByte(',', buffer, at);
            }
            first = false;
            at = putKey(member.getKey(), buffer, at);
            at = putByte(':', buffer, at);
            at = writeNode(member.getValue(), buffer, at, depth + 1);
            if (at < 0) {
                return -1;
            }
        }
        return putByte('}', buffer, at);
    }

    private static int writeArray(ArrayNode array, byte[] buffer, int at, int depth) {
        at = putByte('[', buffer, at);
        for (int i = 0; i < array.size(); i++) {
            if (i > 0) {
                at = putByte(',', buffer, at);
            }
            at = writeNode(array.get(i), buffer, at, depth + 1);
            if (at < 0) {
                return -1;
            }
        }
        return putByte(']', buffer, at);
    }

    private static int putByte(char ascii, byte[] buffer, int at) {
        if (at < 0 || at >= MAX_BYTES) {
            return -1;
        }
        buffer[at] = (byte) ascii;
        return at + 1;
    }

    private static int put(byte[] bytes, byte[] buffer, int at) {
        if (at < 0 || at + bytes.length > MAX_BYTES) {
            return -1;
        }
        System.arraycopy(bytes, 0, buffer, at, bytes.length);
        return at + bytes.length;
    }

    private static int putDigits(long value, byte[] buffer, int at) {
        if (value == Long.MIN_VALUE) {
            return put(MIN_LONG, buffer, at);
        }
        if (at < 0 || at + MIN_LONG.length > MAX_BYTES) {
            return -1;
        }
        if (value < 0) {
            buffer[at++] = '-';
            value = -value;
        }
        int end = at + digits(value);
        for (int i = end - 1; i >= at; i--) {
            buffer[i] = (byte) ('0' + value % 10);
            value /= 10;
        }
        return end;
    }

    private static int digits(long value) {
        int count = 1;
        for (long rest = value; rest >= 10; rest /= 10) {
            count++;
        }
        return count;
    }

    private static int putKey(String key, byte[] buffer, int at) {
        int slot = key.hashCode() & (KEYS.length - 1);
        QuotedKey cached = KEYS[slot];
        if (cached != null && (cached.key == key || cached.key.equals(key))) {
            return put(cached.quoted, buffer, at);
        }
        int end = putString(key, buffer, at);
        if (cached == null && end > at && end - at <= MAX_KEY_CACHED) {
            KEYS[slot] = new QuotedKey(key, Arrays.copyOfRange(buffer, at, end));
        }
        return end;
    }

    /** An ASCII string, quoted and escaped; -1 for one with any other character, which the generator writes. */
    private static int putString(String s, byte[] buffer, int at) {
        if (at < 0 || at + 2 + (long) s.length() * LONGEST_ESCAPE > MAX_BYTES && at + stringSize(s) > MAX_BYTES) {
            return -1;
        }
        buffer[at++] = '"';
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c >= 128) {
                return -1;
            }
            if (GROWTH[c] == 0) {
                buffer[at++] = (byte) c;
            } else {
                at = putEscape(ESCAPES[c], buffer, at);
            }
        }
        buffer[at++] = '"';
        return at;
    }

    /** UTF-8 text, quoted and escaped: ASCII as the generator escapes it, every other byte as it is. */
    private static int putEscaped(byte[] utf8, byte[] buffer, int at) {
        if (at < 0 || at + 2 + (long) utf8.length * LONGEST_ESCAPE > MAX_BYTES && at + escapedSize(utf8) > MAX_BYTES) {
            return -1;
        }
        buffer[at++] = '"';
        for (byte b : utf8) {
            if (GROWTH[b & 0xFF] == 0) {
                buffer[at++] = b;
            } else {
                at = putEscape(ESCAPES[b], buffer, at);
            }
        }
        buffer[at++] = '"';
        return at;
    }

    /** An escape is two to six bytes: a loop costs less than a copy's call. */
    private static int putEscape(byte[] escape, byte[] buffer, int at) {
        for (byte b : escape) {
            buffer[at++] = b;
        }
        return at;
    }

    /** The quoted size of a string, taken as ASCII (a string that is not is refused while it is written). */
    private static int stringSize(String s) {
        int total = s.length() + 2;
        for (int i = 0; i < s.length(); i++) {
            total += GROWTH[s.charAt(i) & 0x7F];
        }
        return total;
    }

    private static int escapedSize(byte[] utf8) {
        int total = utf8.length + 2;
        for (byte b : utf8) {
            total += GROWTH[b & 0xFF];
        }
        return total;
    }

    private static byte[][] escapesOfTheGenerator() {
        byte[][] escapes = new byte[128][];
        for (int c = 0; c < 128; c++) {
            ByteArrayOutputStream out = new ByteArrayOutputStream(8);
            try (JsonGenerator gen = Json.mapper().createGenerator(out)) {
                gen.writeString(String.valueOf((char) c));
            }
            byte[] quoted = out.toByteArray();
            if (quoted.length != 3 || quoted[1] != c) {
                escapes[c] = Arrays.copyOfRange(quoted, 1, quoted.length - 1);
            }
        }
        return escapes;
    }
}
