package dev.tern.protocol.model;

import java.util.ArrayList;
import java.util.List;

import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.ValueSerializer;
import tools.jackson.databind.jsontype.TypeDeserializer;
import tools.jackson.databind.jsontype.TypeSerializer;

/** JSON for sampling content: one block, or an array of blocks read as and written from a {@link ContentList}. */
final class SamplingContentJson {
    private SamplingContentJson() {
    }

    static final class Reader extends ValueDeserializer<Content> {
        @Override
        public Content deserialize(JsonParser p, DeserializationContext ctxt) throws JacksonException {
            JsonNode node = ctxt.readTree(p);
            if (node.isArray()) {
                List<Content> items = new ArrayList<>(node.size());
                for (JsonNode item : node) {
                    items.add(ctxt.readTreeAsValue(item, Content.class));
                }
                return new ContentList(items);
            }
            return ctxt.readTreeAsValue(node, Content.class);
        }

        @Override
        public Object deserializeWithType(JsonParser p, DeserializationContext ctxt, TypeDeserializer typeDeserializer)
                throws JacksonException {
            return deserialize(p, ctxt);
        }
    }

    static final class Writer extends ValueSerializer<Content> {
        @Override
        public void serialize(Content value, JsonGenerator gen, SerializationContext ctxt) throws JacksonException {
            if (value instanceof ContentList list) {
                gen.writeStartArray();
                for (Content item : list.items()) {
                    ctxt.writeValue(gen, item);
                }
                gen.writeEndArray();
            } else {
                ctxt.writeValue(gen, value);
            }
        }

        @Override
        public void serializeWithType(Content value, JsonGenerator gen, SerializationContext ctxt, TypeSerializer typeSer)
                throws JacksonException {
            serialize(value, gen, ctxt);
        }
    }
}
