package dev.tern.protocol;

import java.io.ByteArrayOutputStream;

import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.exc.StreamConstraintsException;
import tools.jackson.databind.DatabindException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.cbor.CBORFactory;
import tools.jackson.dataformat.cbor.CBORMapper;

/** JSON-RPC messages in CBOR (RFC 8949), read and written with Jackson's CBOR data format. */
final class CborCodec extends BinaryCodec {
    private final CBORMapper mapper;
    private final ObjectReader reader;

    CborCodec(JsonRpcCodec json) {
        super(json);
        CodecLimits l = json.limits();
        CBORFactory factory = CBORFactory.builder()
                .streamReadConstraints(StreamReadConstraints.builder()
                        .maxNestingDepth(l.maxNestingDepth())
                        .maxStringLength(l.maxStringLength())
                        .maxNameLength(Math.min(l.maxStringLength(), 50_000))
                        .maxNumberLength(l.maxNumberLength())
                        .maxDocumentLength(l.maxMessageBytes())
                        .build())
                .build();
        this.mapper = CBORMapper.builder(factory).enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();
        this.reader = mapper.reader().with(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY);
    }

    @Override
    public WireFormat format() {
        return WireFormat.CBOR;
    }

    @Override
    JsonNode read(byte[] bytes, int offset, int length) {
        JsonNode tree;
        try {
            tree = reader.readTree(bytes, offset, length);
        } catch (StreamConstraintsException e) {
            String message = firstLine(e.getOriginalMessage());
            if (message.contains("String value length") || message.contains("Name length")) {
                throw new Refused(ErrorCodes.INVALID_PARAMS, "Invalid params: " + message);
            }
            throw Refused.parse("Parse error: " + message);
        } catch (DatabindException e) {
            String message = firstLine(e.getOriginalMessage());
            if (message.startsWith("Duplicate property")) {
                int jacksonDetail = message.indexOf(" for `ObjectNode`");
                throw new Refused(ErrorCodes.INVALID_REQUEST, "Invalid request: "
                        + (jacksonDetail < 0 ? message : message.substring(0, jacksonDetail)));
            }
            throw Refused.parse("Parse error: malformed CBOR: " + message);
        } catch (JacksonException e) {
            throw Refused.parse("Parse error: malformed CBOR: " + firstLine(e.getOriginalMessage()));
        }
        if (tree == null || tree.isMissingNode()) {
            throw Refused.parse("Parse error: empty message");
        }
        check(tree, 1);
        return tree;
    }

    @Override
    byte[] write(JsonNode tree) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        try (JsonGenerator g = mapper.createGenerator(out)) {
            write(g, tree);
        }
        return out.toByteArray();
    }

    private static void write(JsonGenerator g, JsonNode node) {
        switch (node) {
            case ObjectNode object -> {
                g.writeStartObject(object, object.size());
                for (var member : object.properties()) {
                    g.writeName(JsonRpcCodec.wellFormed(member.getKey()));
                    write(g, member.getValue());
                }
                g.writeEndObject();
            }
            case ArrayNode array -> {
                g.writeStartArray(array, array.size());
                for (JsonNode item : array) {
                    write(g, item);
                }
                g.writeEndArray();
            }
            default -> {
                if (node.isString()) {
                    g.writeString(JsonRpcCodec.wellFormed(node.stringValue()));
                } else if (Json.rawText(node) != null) {
                    write(g, Json.materialize(node));
                } else {
                    g.writeTree(node);
                }
            }
        }
    }

    static String firstLine(String message) {
        if (message == null) {
            return "malformed input";
        }
        int nl = message.indexOf('\n');
        String line = nl < 0 ? message : message.substring(0, nl);
        return line.length() > 200 ? line.substring(0, 200) + "…" : line;
    }
}
