package dev.tern.protocol;

import com.fasterxml.jackson.annotation.JsonInclude;

import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.StreamReadFeature;
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
     * then appear both as a string and as a member of a message. Lone surrogates in it become U+FFFD, as
     * {@link JsonRpcCodec#encode} writes every other string. Read it with {@link #materialize}.
     */
    public static JsonNode rawJson(String json) {
        return JsonNodeFactory.instance.rawValueNode(new RawValue(JsonRpcCodec.wellFormed(json)));
    }

    /** Whether {@code node} is a {@link #rawJson} node holding a JSON object. */
    public static boolean isRawObject(JsonNode node) {
        return node instanceof POJONode pojo && pojo.getPojo() instanceof RawValue raw
                && raw.rawValue() instanceof String text && text.startsWith("{");
    }

    /** The tree of a {@link #rawJson} node, parsed; any other node as it is. */
    public static JsonNode materialize(JsonNode node) {
        if (node instanceof POJONode pojo && pojo.getPojo() instanceof RawValue raw) {
            return DEFAULT.readTree(String.valueOf(raw.rawValue()));
        }
        return node;
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
