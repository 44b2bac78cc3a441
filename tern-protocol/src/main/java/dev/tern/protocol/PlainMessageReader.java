package dev.tern.protocol;

import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.TokenStreamFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Reads the common case of an incoming message, a request or notification whose members are {@code jsonrpc},
 * {@code id}, {@code method} and an object of {@code params}, in one pass of the parser, without the databind
 * machinery the general tree reader goes through. It gives up, returning {@code null}, on anything else: other
 * members, a member twice, a value of another type, an integer beyond 64 bits, a batch, trailing data or any error
 * of the parser (fractions become doubles, as the codec's tree reader makes them). The codec then reads the message
 * as a tree, which finds the exact error to answer with, so nothing here decides what is wrong with a message, only
 * that it is plainly right.
 */
final class PlainMessageReader {
    private static final int JSONRPC = 1;
    private static final int ID = 2;
    private static final int METHOD = 4;
    private static final int PARAMS = 8;
    /** Deeper values are left to the tree reader, which does not recurse: a limit set high must not overflow the stack. */
    private static final int MAX_DEPTH = 64;

    private final TokenStreamFactory parsers;
    private final ObjectReadContext context;
    private final JsonNodeFactory nodes;

    PlainMessageReader(JsonMapper mapper) {
        this.parsers = mapper.tokenStreamFactory();
        this.nodes = mapper.deserializationConfig().getNodeFactory();
        this.context = new WithoutDuplicateDetection(parsers);
    }

    /** The message in {@code bytes}, or {@code null} when it is not plainly a request or notification. */
    Decoded read(byte[] bytes, int offset, int length) {
        try (JsonParser parser = parsers.createParser(context, bytes, offset, length)) {
            return read(parser);
        } catch (JacksonException e) {
            return null;
        }
    }

    private Decoded read(JsonParser parser) {
        if (parser.nextToken() != JsonToken.START_OBJECT) {
            return null;
        }
        int seen = 0;
        RequestId id = null;
        String method = null;
        ObjectNode params = null;
        String name;
        while ((name = parser.nextName()) != null) {
            int member = switch (name) {
                case "jsonrpc" -> JSONRPC;
                case "id" -> ID;
                case "method" -> METHOD;
                case "params" -> PARAMS;
                default -> 0;
            };
            if (member == 0 || (seen & member) != 0) {
                return null;
            }
            seen |= member;
            JsonToken value = parser.nextToken();
            switch (member) {
                case JSONRPC -> {
                    if (value != JsonToken.VALUE_STRING || !"2.0".equals(parser.getString())) {
                        return null;
                    }
                }
                case ID -> {
                    id = RequestId.of(parser, value);
                    if (id == null) {
                        return null;
                    }
                }
                case METHOD -> {
                    if (value != JsonToken.VALUE_STRING) {
                        return null;
                    }
                    method = parser.getString();
                }
                default -> {
                    if (value == JsonToken.START_OBJECT) {
                        params = readObject(parser, 1);
                        if (params == null) {
                            return null;
                        }
                    } else if (value != JsonToken.VALUE_NULL) {
                        return null;
                    }
                }
            }
        }
        if ((seen & (JSONRPC | METHOD)) != (JSONRPC | METHOD) || parser.nextToken() != null) {
            return null;
        }
        return new Decoded.Single(id == null
                ? new JsonRpcNotification(method, params)
                : new JsonRpcRequest(id, method, params));
    }

    /** The object whose start the parser is at, or {@code null} when it holds a name twice or an unplain value. */
    private ObjectNode readObject(JsonParser parser, int depth) {
        ObjectNode object = nodes.objectNode();
        String name;
        while ((name = parser.nextName()) != null) {
            JsonNode value = readValue(parser, parser.nextToken(), depth);
            if (value == null || object.replace(name, value) != null) {
                return null;
            }
        }
        return object;
    }

    private ArrayNode readArray(JsonParser parser, int depth) {
        ArrayNode array = nodes.arrayNode();
        JsonToken token;
        while ((token = parser.nextToken()) != JsonToken.END_ARRAY) {
            JsonNode value = readValue(parser, token, depth);
            if (value == null) {
                return null;
            }
            array.add(value);
        }
        return array;
    }

    private JsonNode readValue(JsonParser parser, JsonToken token, int depth) {
        if (token == null) {
            return null;
        }
        return switch (token) {
            case START_OBJECT -> depth < MAX_DEPTH ? readObject(parser, depth + 1) : null;
            case START_ARRAY -> depth < MAX_DEPTH ? readArray(parser, depth + 1) : null;
            case VALUE_STRING -> nodes.stringNode(parser.getString());
            case VALUE_TRUE -> nodes.booleanNode(true);
            case VALUE_FALSE -> nodes.booleanNode(false);
            case VALUE_NULL -> nodes.nullNode();
            case VALUE_NUMBER_INT -> switch (parser.getNumberType()) {
                case INT -> nodes.numberNode(parser.getIntValue());
                case LONG -> nodes.numberNode(parser.getLongValue());
                default -> null;
            };
            case VALUE_NUMBER_FLOAT -> switch (parser.getNumberTypeFP()) {
                case UNKNOWN, DOUBLE64 -> nodes.numberNode(parser.getDoubleValue());
                default -> null;
            };
            default -> null;
        };
    }

    /**
     * The parser's settings but for duplicate detection, which keeps a set of every object's names: a name seen
     * twice is found as the tree takes it, as the codec's tree reader does.
     */
    private static final class WithoutDuplicateDetection extends ObjectReadContext.Base {
        private final TokenStreamFactory parsers;

        WithoutDuplicateDetection(TokenStreamFactory parsers) {
            this.parsers = parsers;
        }

        @Override
        public int getStreamReadFeatures(int defaults) {
            return defaults & ~StreamReadFeature.STRICT_DUPLICATE_DETECTION.getMask();
        }

        @Override
        public TokenStreamFactory tokenStreamFactory() {
            return parsers;
        }

        @Override
        public StreamReadConstraints streamReadConstraints() {
            return parsers.streamReadConstraints();
        }
    }
}
