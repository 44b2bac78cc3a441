package dev.tern.protocol;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.SerializableString;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.StreamWriteFeature;
import tools.jackson.core.exc.StreamConstraintsException;
import tools.jackson.core.exc.StreamReadException;
import tools.jackson.core.util.JsonGeneratorDelegate;
import tools.jackson.databind.DatabindException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.ObjectWriter;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.BooleanNode;
import tools.jackson.databind.node.JsonNodeType;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.node.POJONode;
import tools.jackson.databind.node.StringNode;
import tools.jackson.databind.util.RawValue;

/**
 * Reads and writes JSON-RPC 2.0 messages. Reading is strict: UTF-8 only, no duplicate keys, no trailing data,
 * bounded depth, string, number and message sizes; every rejection is a specific JSON-RPC error, never an
 * exception. Thread-safe.
 */
public final class JsonRpcCodec implements MessageCodec {
    private static final String VERSION = "2.0";
    /** result, content, a block, its text: deeper nodes are written by the generator's own tree writer. */
    private static final int RESULT_LEVELS_WALKED = 3;

    private final CodecLimits limits;
    private final JsonMapper mapper;
    /** Writes to a caller's stream without closing it. */
    private final ObjectWriter streamWriter;
    /**
     * Reads messages as trees, refusing duplicate keys as it puts them in the tree: a key seen twice replaces a value,
     * which the parser's own detection would find with a set of the names of every object it reads.
     */
    private final ObjectReader treeReader;
    private final PlainMessageReader plainReader;

    public JsonRpcCodec(CodecLimits limits) {
        this.limits = Objects.requireNonNull(limits, "limits");
        this.mapper = Json.newMapper(limits);
        this.streamWriter = mapper.writer().without(StreamWriteFeature.AUTO_CLOSE_TARGET);
        this.treeReader = mapper.reader()
                .without(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                .with(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY);
        this.plainReader = new PlainMessageReader(mapper);
    }

    public static JsonRpcCodec withDefaults() {
        return new JsonRpcCodec(CodecLimits.DEFAULT);
    }

    @Override
    public WireFormat format() {
        return WireFormat.JSON;
    }

    public CodecLimits limits() {
        return limits;
    }

    public JsonMapper mapper() {
        return mapper;
    }

    public Decoded decode(byte[] bytes) {
        return decode(bytes, 0, bytes.length);
    }

    @Override
    public Decoded decode(byte[] bytes, int offset, int length) {
        if (length > limits.maxMessageBytes()) {
            return parseError("Message of " + length + " bytes exceeds the limit of " + limits.maxMessageBytes());
        }
        String encodingProblem = Utf8Check.problem(bytes, offset, length);
        if (encodingProblem != null) {
            return parseError(encodingProblem);
        }
        Decoded plain = plainReader.read(bytes, offset, length);
        return plain != null ? plain : decodeAsTree(bytes, offset, length);
    }

    /** Reads a message of checked size and encoding as a tree, then its envelope: every case, every error. */
    Decoded decodeAsTree(byte[] bytes, int offset, int length) {
        JsonNode tree;
        try {
            tree = treeReader.readTree(bytes, offset, length);
        } catch (StreamConstraintsException e) {
            return constraintViolation(e);
        } catch (StreamReadException e) {
            return parseError("Parse error: " + firstLine(e.getOriginalMessage()));
        } catch (DatabindException e) {
            String message = e.getOriginalMessage();
            if (message != null && message.startsWith("Duplicate property")) {
                int jacksonDetail = message.indexOf(" for `ObjectNode`");
                return invalid(null, ErrorCodes.INVALID_REQUEST, "Invalid request: "
                        + firstLine(jacksonDetail < 0 ? message : message.substring(0, jacksonDetail)));
            }
            return parseError("Parse error: " + firstLine(message));
        } catch (JacksonException e) {
            return parseError("Parse error: " + firstLine(e.getOriginalMessage()));
        }
        return decodeTree(tree);
    }

    /** Checks a parsed message, or batch of them: the same cases and errors whatever format it was read from. */
    Decoded decodeTree(JsonNode tree) {
        if (tree == null || tree.isMissingNode()) {
            return parseError("Parse error: empty message");
        }
        if (tree instanceof ArrayNode array) {
            if (array.isEmpty()) {
                return invalid(null, ErrorCodes.INVALID_REQUEST, "Invalid request: empty batch");
            }
            if (array.size() > limits.maxBatchSize()) {
                return invalid(null, ErrorCodes.INVALID_REQUEST,
                        "Invalid request: batch of " + array.size() + " exceeds the limit of " + limits.maxBatchSize());
            }
            List<Decoded> items = new ArrayList<>(array.size());
            for (JsonNode item : array) {
                items.add(envelope(item));
            }
            return new Decoded.Batch(items);
        }
        return envelope(tree);
    }

    /** Checks the JSON-RPC envelope of an already parsed value. */
    public Decoded envelope(JsonNode node) {
        if (!(node instanceof ObjectNode object)) {
            return invalid(null, ErrorCodes.INVALID_REQUEST, "Invalid request: a message must be a JSON object");
        }
        JsonNode idNode = object.get("id");
        RequestId id = null;
        String idProblem = null;
        if (idNode != null) {
            id = RequestId.of(idNode);
            if (id == null) {
                idProblem = "Invalid request: id must be a string or an integer, was " + describe(idNode);
            }
        }
        JsonNode version = object.get("jsonrpc");
        if (version == null || !version.isString() || !VERSION.equals(version.stringValue())) {
            return invalid(id, ErrorCodes.INVALID_REQUEST,
                    "Invalid request: jsonrpc must be \"2.0\", was " + (version == null ? "missing" : describe(version)));
        }
        if (idProblem != null) {
            return invalid(null, ErrorCodes.INVALID_REQUEST, idProblem);
        }
        JsonNode method = object.get("method");
        boolean hasResult = object.has("result");
        boolean hasError = object.has("error");
        if (method != null) {
            if (hasResult || hasError) {
                return invalid(id, ErrorCodes.INVALID_REQUEST, "Invalid request: a request cannot carry result or error");
            }
            if (!method.isString()) {
                return invalid(id, ErrorCodes.INVALID_REQUEST, "Invalid request: method must be a string, was " + describe(method));
            }
            JsonNode params = object.get("params");
            ObjectNode paramsObject = null;
            if (params != null && !params.isNull()) {
                if (!(params instanceof ObjectNode p)) {
                    if (id == null) {
                        return new Decoded.Ignored("notification " + method.stringValue() + " with non-object params");
                    }
                    return invalid(id, ErrorCodes.INVALID_PARAMS, "Invalid params: params must be an object, was " + describe(params));
                }
                paramsObject = p;
            }
            String name = method.stringValue();
            return new Decoded.Single(id == null
                    ? new JsonRpcNotification(name, paramsObject)
                    : new JsonRpcRequest(id, name, paramsObject));
        }
        if (hasResult == hasError) {
            if (idNode == null && !hasResult) {
                return invalid(null, ErrorCodes.INVALID_REQUEST, "Invalid request: method is missing");
            }
            return invalid(id, ErrorCodes.INVALID_REQUEST, "Invalid request: a response carries exactly one of result and error");
        }
        if (hasResult) {
            if (id == null) {
                return invalid(null, ErrorCodes.INVALID_REQUEST, "Invalid request: a result needs an id");
            }
            return new Decoded.Single(new JsonRpcResult(id, object.get("result")));
        }
        JsonNode error = object.get("error");
        JsonNode code = error.get("code");
        JsonNode message = error.get("message");
        if (!error.isObject() || code == null || !code.isIntegralNumber() || !code.canConvertToInt()
                || message == null || !message.isString()) {
            return invalid(id, ErrorCodes.INVALID_REQUEST, "Invalid request: error must have an integer code and a string message");
        }
        JsonNode data = error.get("data");
        return new Decoded.Single(new JsonRpcFailure(id, new JsonRpcError(code.intValue(), message.stringValue(), data)));
    }

    /**
     * Writes one message as compact UTF-8 JSON on one line. A lone UTF-16 surrogate in a string (half of an emoji cut
     * by {@code substring}, say) is written as U+FFFD: peers must refuse lone surrogates, as {@link #decode} does,
     * and one bad character must not cost the whole message.
     */
    @Override
    public byte[] encode(JsonRpcMessage message) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        encode(message, out);
        return out.toByteArray();
    }

    /** Writes one message as by {@link #encode(JsonRpcMessage)} to {@code out}, which is left open. */
    public void encode(JsonRpcMessage message, OutputStream out) {
        if (message instanceof JsonRpcResult r && Json.holdsUtf8Json(r.result())
                && ResultBytesWriter.write(r.id(), r.result(), out)) {
            return;
        }
        encodeWithGenerator(message, out);
    }

    /** Writes one message through Jackson's generator, as every message but the common tool result is written. */
    void encodeWithGenerator(JsonRpcMessage message, OutputStream out) {
        try (JsonGenerator gen = new WellFormedStrings(streamWriter.createGenerator(out))) {
            write(gen, message);
        }
    }

    /** Writes the responses to a batch as one JSON array. */
    @Override
    public byte[] encodeBatch(List<? extends JsonRpcMessage> messages) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        try (JsonGenerator gen = new WellFormedStrings(mapper.createGenerator(out))) {
            gen.writeStartArray();
            for (JsonRpcMessage m : messages) {
                write(gen, m);
            }
            gen.writeEndArray();
        }
        return out.toByteArray();
    }

    public JsonNode toTree(JsonRpcMessage message) {
        return mapper.readTree(encode(message));
    }

    private void write(JsonGenerator gen, JsonRpcMessage message) {
        gen.writeStartObject();
        gen.writeStringProperty("jsonrpc", VERSION);
        switch (message) {
            case JsonRpcRequest r -> {
                writeId(gen, r.id());
                gen.writeStringProperty("method", r.method());
                if (r.params() != null) {
                    gen.writeName("params");
                    gen.writeTree(r.params());
                }
            }
            case JsonRpcNotification n -> {
                gen.writeStringProperty("method", n.method());
                if (n.params() != null) {
                    gen.writeName("params");
                    gen.writeTree(n.params());
                }
            }
            case JsonRpcResult r -> {
                writeId(gen, r.id());
                gen.writeName("result");
                if (Json.holdsUtf8Json(r.result())) {
                    writeResult(gen, r.result(), 0);
                } else {
                    gen.writeTree(r.result());
                }
            }
            case JsonRpcFailure f -> {
                writeId(gen, f.id());
                gen.writeName("error");
                gen.writeStartObject();
                gen.writeNumberProperty("code", f.error().code());
                gen.writeStringProperty("message", f.error().message());
                if (f.error().data() != null) {
                    gen.writeName("data");
                    gen.writeTree(f.error().data());
                }
                gen.writeEndObject();
            }
        }
        gen.writeEndObject();
    }

    /**
     * Writes the tree of a tool result holding a value serialized once as the generator would, but for its top levels
     * (where results keep their content blocks), walked here: the string node of {@link Json#stringNode} is written
     * escaped from the UTF-8 it carries, and leaves go to the generator without the serializer lookup of
     * {@code writeTree}.
     */
    private static void writeResult(JsonGenerator gen, JsonNode node, int depth) {
        if (depth > RESULT_LEVELS_WALKED) {
            gen.writeTree(node);
        } else if (node instanceof ObjectNode object) {
            gen.writeStartObject();
            for (var member : object.properties()) {
                gen.writeName(member.getKey());
                writeResult(gen, member.getValue(), depth + 1);
            }
            gen.writeEndObject();
        } else if (node instanceof ArrayNode array) {
            gen.writeStartArray();
            for (JsonNode item : array) {
                writeResult(gen, item, depth + 1);
            }
            gen.writeEndArray();
        } else if (node instanceof Utf8Json.Text text) {
            byte[] utf8 = text.utf8();
            gen.writeUTF8String(utf8, 0, utf8.length);
        } else if (node instanceof StringNode string) {
            gen.writeString(string.stringValue());
        } else if (node instanceof BooleanNode bool) {
            gen.writeBoolean(bool.booleanValue());
        } else if (node instanceof POJONode pojo && pojo.getPojo() instanceof RawValue raw
                && raw.rawValue() instanceof SerializableString json) {
            gen.writeRawValue(json);
        } else {
            gen.writeTree(node);
        }
    }

    private static void writeId(JsonGenerator gen, RequestId id) {
        switch (id) {
            case null -> gen.writeNullProperty("id");
            case RequestId.NumberId n -> gen.writeNumberProperty("id", n.value());
            case RequestId.StringId s -> gen.writeStringProperty("id", s.value());
        }
    }

    private Decoded constraintViolation(StreamConstraintsException e) {
        String message = firstLine(e.getOriginalMessage());
        if (message.contains("String value length") || message.contains("Name length")) {
            return invalid(null, ErrorCodes.INVALID_PARAMS, "Invalid params: " + message);
        }
        return parseError("Parse error: " + message);
    }

    private static Decoded parseError(String message) {
        return invalid(null, ErrorCodes.PARSE_ERROR, message);
    }

    private static Decoded invalid(RequestId id, int code, String message) {
        return new Decoded.Invalid(new JsonRpcFailure(id, JsonRpcError.of(code, message)));
    }

    private static String describe(JsonNode node) {
        JsonNodeType type = node.getNodeType();
        return switch (type) {
            case NULL -> "null";
            case NUMBER -> node.isIntegralNumber() ? "an out-of-range integer" : "a fractional number";
            case STRING -> "a string";
            case BOOLEAN -> "a boolean";
            case ARRAY -> "an array";
            case OBJECT -> "an object";
            default -> type.name().toLowerCase(java.util.Locale.ROOT);
        };
    }

    /** Passes every string and property name through {@link #wellFormed} on the way to the real generator. */
    private static final class WellFormedStrings extends JsonGeneratorDelegate {
        WellFormedStrings(JsonGenerator delegate) {
            super(delegate, false);
        }

        @Override
        public JsonGenerator writeName(String name) {
            return super.writeName(wellFormed(name));
        }

        @Override
        public JsonGenerator writeString(String text) {
            return super.writeString(text == null ? null : wellFormed(text));
        }

        @Override
        public JsonGenerator writeString(char[] text, int offset, int len) {
            return writeString(new String(text, offset, len));
        }

        /** To the real generator's own: the delegate's default would decode the text and write it from characters. */
        @Override
        public JsonGenerator writeRawValue(SerializableString text) {
            delegate.writeRawValue(text);
            return this;
        }
    }

    /** {@code s} with every unpaired surrogate replaced by U+FFFD; {@code s} itself when it has none. */
    static String wellFormed(String s) {
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (Character.isSurrogate(c)) {
                if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                    i++;
                    continue;
                }
                return replaceLoneSurrogates(s, i);
            }
        }
        return s;
    }

    private static String replaceLoneSurrogates(String s, int from) {
        StringBuilder b = new StringBuilder(s.length()).append(s, 0, from);
        int n = s.length();
        for (int i = from; i < n; i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                b.append(c).append(s.charAt(++i));
            } else if (Character.isSurrogate(c)) {
                b.append('\uFFFD');
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "malformed JSON";
        }
        int nl = message.indexOf('\n');
        String line = nl < 0 ? message : message.substring(0, nl);
        return line.length() > 200 ? line.substring(0, 200) + "…" : line;
    }
}
