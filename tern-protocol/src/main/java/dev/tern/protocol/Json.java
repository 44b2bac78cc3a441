package dev.tern.protocol;

import com.fasterxml.jackson.annotation.JsonInclude;

import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

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
