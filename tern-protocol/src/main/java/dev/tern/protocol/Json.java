package dev.tern.protocol;

import com.fasterxml.jackson.annotation.JsonInclude;

import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.TokenStreamFactory;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.util.JsonRecyclerPools;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.node.POJONode;
import tools.jackson.databind.util.RawValue;

import org.jspecify.annotations.Nullable;

/** The JSON mappers Tern uses: strict on input, compact on output, nulls left out. */
public final class Json {
    private static final JsonMapper DEFAULT = newMapper(CodecLimits.DEFAULT);

    private Json() {
    }

    /** The shared mapper with the default limits. Thread-safe. */
    public static JsonMapper mapper() {
        return DEFAULT;
    }

    public static ObjectNode object() {
        return JsonNodeFactory.instance.objectNode();
    }

    /**
     * A node that writes {@code json}, text a mapper has already serialized, as it is: a value serialized once can
     * then appear both as a string ({@link #stringNode}) and as a member of a message, and Tern's codec writes both from
     * the same UTF-8 bytes. Lone surrogates in it become U+FFFD, as {@link JsonRpcCodec#encode} writes every other
     * string. Read it with {@link #rawText} or {@link #materialize}.
     */
    public static JsonNode rawJson(String json) {
        return JsonNodeFactory.instance.rawValueNode(new RawValue(Utf8Json.wellFormed(json)));
    }

    /** {@code value} serialized once by the shared mapper, as a {@link #rawJson} node. */
    public static JsonNode rawJsonOf(Object value) {
        return rawJson(DEFAULT.writeValueAsString(value));
    }

    /** The JSON text of a {@link #rawJson} node; {@code null} for any other node. */
    public static @Nullable String rawText(JsonNode node) {
        if (node instanceof POJONode pojo && pojo.getPojo() instanceof RawValue raw) {
            return String.valueOf(raw.rawValue());
        }
        return null;
    }

    /**
     * A string node of {@code text}. When {@code text} is the very string {@link #rawText} gives for {@code json}, a
     * {@link #rawJson} node, the codec writes it escaped from that node's bytes instead of encoding it again; it is
     * a plain string node to everything else.
     */
    public static JsonNode stringNode(String text, @Nullable JsonNode json) {
        if (json instanceof POJONode pojo && pojo.getPojo() instanceof RawValue raw
                && raw.rawValue() instanceof Utf8Json utf8 && utf8.getValue() == text) {
            return utf8.asStringNode();
        }
        return JsonNodeFactory.instance.stringNode(text);
    }

    /** Whether {@code result}'s structured content is a {@link #rawJson} node (its text blocks may repeat it). */
    static boolean holdsUtf8Json(JsonNode result) {
        return result instanceof ObjectNode object && object.get("structuredContent") instanceof POJONode pojo
                && pojo.getPojo() instanceof RawValue raw && raw.rawValue() instanceof Utf8Json;
    }

    /** Whether {@code node} is a {@link #rawJson} node holding a JSON object. */
    public static boolean isRawObject(JsonNode node) {
        String text = rawText(node);
        return text != null && text.startsWith("{");
    }

    /** The tree of a {@link #rawJson} node, parsed; any other node as it is. */
    public static JsonNode materialize(JsonNode node) {
        String text = rawText(node);
        return text == null ? node : DEFAULT.readTree(text);
    }

    /** A mapper that rejects duplicate keys and trailing data and enforces the given limits. */
    public static JsonMapper newMapper(CodecLimits limits) {
        JsonFactory factory = JsonFactory.builder()
                .streamReadConstraints(StreamReadConstraints.builder()
                        .maxNestingDepth(limits.maxNestingDepth())
                        .maxStringLength(limits.maxStringLength())
                        .maxNameLength(Math.min(limits.maxStringLength(), 50_000))
                        .maxNumberLength(limits.maxNumberLength())
                        .maxDocumentLength(limits.maxMessageBytes())
                        .build())
                .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                // Interned names let a look-up in a tree by a constant name compare references, not characters.
                .enable(TokenStreamFactory.Feature.INTERN_PROPERTY_NAMES)
                .recyclerPool(JsonRecyclerPools.sharedHybridPool())
                .build();
        return JsonMapper.builder(factory)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .disable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
                .changeDefaultPropertyInclusion(incl -> incl
                        .withValueInclusion(JsonInclude.Include.NON_ABSENT)
                        .withContentInclusion(JsonInclude.Include.NON_ABSENT))
                .build();
    }
}
