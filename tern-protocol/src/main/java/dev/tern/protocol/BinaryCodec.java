package dev.tern.protocol;

import java.util.List;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What the binary codecs share: a message travels as the tree its JSON would parse to, so that once decoded it goes
 * through the JSON codec's envelope checks, and the limits are those of the JSON codec it is made from.
 */
abstract class BinaryCodec implements MessageCodec {
    final JsonRpcCodec json;
    final CodecLimits limits;

    BinaryCodec(JsonRpcCodec json) {
        this.json = json;
        this.limits = json.limits();
    }

    /** The tree of one message, or throws {@link Refused}. */
    abstract JsonNode read(byte[] bytes, int offset, int length);

    abstract byte[] write(JsonNode tree);

    @Override
    public final Decoded decode(byte[] bytes, int offset, int length) {
        if (length > limits.maxMessageBytes()) {
            return Refused.parse("Message of " + length + " bytes exceeds the limit of " + limits.maxMessageBytes())
                    .decoded();
        }
        JsonNode tree;
        try {
            tree = read(bytes, offset, length);
        } catch (Refused r) {
            return r.decoded();
        }
        return json.decodeTree(tree);
    }

    @Override
    public final byte[] encode(JsonRpcMessage message) {
        return write(envelope(message));
    }

    @Override
    public final byte[] encodeBatch(List<? extends JsonRpcMessage> messages) {
        ArrayNode array = Json.mapper().createArrayNode();
        for (JsonRpcMessage m : messages) {
            array.add(envelope(m));
        }
        return write(array);
    }

    /**
     * Refuses what a JSON parser would not have produced or would have refused: byte strings and other values JSON
     * has no form for, numbers that are not finite, strings and names beyond the limits, nesting beyond the limit.
     */
    final void check(JsonNode node, int depth) {
        if (depth > limits.maxNestingDepth()) {
            throw Refused.parse("Parse error: document nesting depth exceeds the maximum allowed ("
                    + limits.maxNestingDepth() + ")");
        }
        switch (node) {
            case ObjectNode object -> {
                for (var member : object.properties()) {
                    checkLength(member.getKey(), Math.min(limits.maxStringLength(), 50_000), "Name");
                    check(member.getValue(), depth + 1);
                }
            }
            case ArrayNode array -> {
                for (JsonNode item : array) {
                    check(item, depth + 1);
                }
            }
            default -> {
                if (node.isString()) {
                    checkLength(node.stringValue(), limits.maxStringLength(), "String value");
                } else if (node.isNumber()) {
                    if (node.isFloatingPointNumber() && !Double.isFinite(node.doubleValue())) {
                        throw Refused.parse("Parse error: " + format().name() + " number " + node.doubleValue()
                                + " has no JSON form");
                    }
                } else if (!node.isBoolean() && !node.isNull()) {
                    throw Refused.parse("Parse error: " + format().name() + " " + node.getNodeType().name()
                            .toLowerCase(java.util.Locale.ROOT) + " value has no JSON form");
                }
            }
        }
    }

    private static void checkLength(String text, int max, String what) {
        if (text.length() > max) {
            throw new Refused(ErrorCodes.INVALID_PARAMS, "Invalid params: " + what + " length (" + text.length()
                    + ") exceeds the maximum allowed (" + max + ")");
        }
    }

    /** The message as the tree its JSON encoding parses to; params and results are shared, not copied. */
    static ObjectNode envelope(JsonRpcMessage message) {
        ObjectNode o = Json.object();
        o.put("jsonrpc", "2.0");
        switch (message) {
            case JsonRpcRequest r -> {
                id(o, r.id());
                o.put("method", r.method());
                if (r.params() != null) {
                    o.set("params", r.params());
                }
            }
            case JsonRpcNotification n -> {
                o.put("method", n.method());
                if (n.params() != null) {
                    o.set("params", n.params());
                }
            }
            case JsonRpcResult r -> {
                id(o, r.id());
                o.set("result", r.result());
            }
            case JsonRpcFailure f -> {
                id(o, f.id());
                ObjectNode error = o.putObject("error");
                error.put("code", f.error().code());
                error.put("message", f.error().message());
                if (f.error().data() != null) {
                    error.set("data", f.error().data());
                }
            }
        }
        return o;
    }

    private static void id(ObjectNode o, RequestId id) {
        switch (id) {
            case null -> o.putNull("id");
            case RequestId.NumberId n -> o.put("id", n.value());
            case RequestId.StringId s -> o.put("id", s.value());
        }
    }

    /** A body refused while reading it, with the JSON-RPC error it gets. */
    static final class Refused extends RuntimeException {
        private final int code;

        Refused(int code, String message) {
            super(message, null, false, false);
            this.code = code;
        }

        static Refused parse(String message) {
            return new Refused(ErrorCodes.PARSE_ERROR, message);
        }

        Decoded decoded() {
            return new Decoded.Invalid(new JsonRpcFailure(null, JsonRpcError.of(code, getMessage())));
        }
    }
}
