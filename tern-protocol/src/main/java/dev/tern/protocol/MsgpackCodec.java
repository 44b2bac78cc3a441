package dev.tern.protocol;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessageFormat;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessagePackException;
import org.msgpack.core.MessageUnpacker;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * JSON-RPC messages in MessagePack, read and written as trees with msgpack-core (no Jackson 3 data format for
 * MessagePack is published). Reading builds the tree itself, so every header is checked against the bytes left before
 * anything is allocated for it.
 */
final class MsgpackCodec extends BinaryCodec {
    static {
        // msgpack-core's default buffers call sun.misc.Unsafe, which Java 24 and later warn about on stderr.
        if (System.getProperty("msgpack.universal-buffer") == null) {
            System.setProperty("msgpack.universal-buffer", "true");
        }
    }

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    MsgpackCodec(JsonRpcCodec json) {
        super(json);
    }

    @Override
    public WireFormat format() {
        return WireFormat.MSGPACK;
    }

    @Override
    JsonNode read(byte[] bytes, int offset, int length) {
        try (MessageUnpacker u = MessagePack.newDefaultUnpacker(bytes, offset, length)) {
            if (!u.hasNext()) {
                throw Refused.parse("Parse error: empty message");
            }
            JsonNode tree = value(u, length, 1);
            if (u.hasNext()) {
                throw Refused.parse("Parse error: trailing data after the message");
            }
            check(tree, 1);
            return tree;
        } catch (MessagePackException | IOException e) {
            throw Refused.parse("Parse error: malformed MessagePack: " + CborCodec.firstLine(e.getMessage()));
        }
    }

    private JsonNode value(MessageUnpacker u, int total, int depth) throws IOException {
        if (depth > limits.maxNestingDepth()) {
            throw Refused.parse("Parse error: document nesting depth exceeds the maximum allowed ("
                    + limits.maxNestingDepth() + ")");
        }
        MessageFormat format = u.getNextFormat();
        switch (format.getValueType()) {
            case NIL -> {
                u.unpackNil();
                return NODES.nullNode();
            }
            case BOOLEAN -> {
                return NODES.booleanNode(u.unpackBoolean());
            }
            case INTEGER -> {
                if (format == MessageFormat.UINT64) {
                    BigInteger big = u.unpackBigInteger();
                    return big.bitLength() < 64 ? NODES.numberNode(big.longValue()) : NODES.numberNode(big);
                }
                long v = u.unpackLong();
                return v == (int) v ? NODES.numberNode((int) v) : NODES.numberNode(v);
            }
            case FLOAT -> {
                return NODES.numberNode(u.unpackDouble());
            }
            case STRING -> {
                return NODES.stringNode(string(u, total));
            }
            case ARRAY -> {
                int n = u.unpackArrayHeader();
                ensureLeft(u, total, n);
                ArrayNode array = NODES.arrayNode(n);
                for (int i = 0; i < n; i++) {
                    array.add(value(u, total, depth + 1));
                }
                return array;
            }
            case MAP -> {
                int n = u.unpackMapHeader();
                ensureLeft(u, total, 2L * n);
                ObjectNode object = NODES.objectNode();
                for (int i = 0; i < n; i++) {
                    if (u.getNextFormat().getValueType() != org.msgpack.value.ValueType.STRING) {
                        throw Refused.parse("Parse error: MessagePack map keys must be strings");
                    }
                    String key = string(u, total);
                    JsonNode v = value(u, total, depth + 1);
                    if (object.has(key)) {
                        throw new Refused(ErrorCodes.INVALID_REQUEST, "Invalid request: Duplicate property \"" + key + "\"");
                    }
                    object.set(key, v);
                }
                return object;
            }
            default -> throw Refused.parse("Parse error: MessagePack " + format.getValueType().name()
                    .toLowerCase(java.util.Locale.ROOT) + " values have no JSON form");
        }
    }

    /** A string whose header was checked against the bytes left and whose bytes are well-formed UTF-8. */
    private String string(MessageUnpacker u, int total) throws IOException {
        int n = u.unpackRawStringHeader();
        ensureLeft(u, total, n);
        byte[] utf8 = u.readPayload(n);
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(utf8)).toString();
        } catch (CharacterCodingException e) {
            throw Refused.parse("Parse error: malformed MessagePack: a string is not well-formed UTF-8");
        }
    }

    /** Refuses a header announcing more items or bytes than the message has left (each takes at least a byte). */
    private static void ensureLeft(MessageUnpacker u, int total, long needed) {
        if (needed > total - u.getTotalReadBytes()) {
            throw Refused.parse("Parse error: malformed MessagePack: a header announces more than the message holds");
        }
    }

    @Override
    byte[] write(JsonNode tree) {
        try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
            write(p, tree);
            return p.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void write(MessageBufferPacker p, JsonNode node) throws IOException {
        switch (node) {
            case ObjectNode object -> {
                p.packMapHeader(object.size());
                for (var member : object.properties()) {
                    p.packString(JsonRpcCodec.wellFormed(member.getKey()));
                    write(p, member.getValue());
                }
            }
            case ArrayNode array -> {
                p.packArrayHeader(array.size());
                for (JsonNode item : array) {
                    write(p, item);
                }
            }
            default -> {
                if (node.isString()) {
                    p.packString(JsonRpcCodec.wellFormed(node.stringValue()));
                } else if (node.isIntegralNumber()) {
                    if (node.canConvertToLong()) {
                        p.packLong(node.longValue());
                    } else if (node.bigIntegerValue().signum() > 0 && node.bigIntegerValue().bitLength() <= 64) {
                        p.packBigInteger(node.bigIntegerValue());
                    } else {
                        p.packDouble(node.doubleValue());
                    }
                } else if (node.isNumber()) {
                    p.packDouble(node.doubleValue());
                } else if (node.isBoolean()) {
                    p.packBoolean(node.booleanValue());
                } else if (node.isNull() || node.isMissingNode()) {
                    p.packNil();
                } else if (Json.rawText(node) != null) {
                    write(p, Json.materialize(node));
                } else if (node.isBinary()) {
                    byte[] bytes = node.binaryValue();
                    p.packBinaryHeader(bytes.length);
                    p.writePayload(bytes);
                } else if (node instanceof tools.jackson.databind.node.POJONode pojo && pojo.getPojo() != null) {
                    write(p, Json.mapper().valueToTree(pojo.getPojo()));
                } else {
                    p.packNil();
                }
            }
        }
    }
}
