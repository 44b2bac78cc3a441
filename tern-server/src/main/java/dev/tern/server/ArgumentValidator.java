package dev.tern.server;

import java.util.ArrayList;
import java.util.List;

import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Validates arguments against a tool's input schema. A simple schema (scalar properties, the common case) gets a fast
 * check ({@link SimpleArgumentCheck}) and its full validator is compiled only when arguments fail that check (it
 * decides and words the errors); any other schema is compiled when the tool is built. Thread-safe.
 */
final class ArgumentValidator {
    private static final int MAX_REPORTED = 10;

    /** Loaded on first use: a server whose tools all have simple schemas may never need it. */
    private static final class Registry {
        static final SchemaRegistry INSTANCE = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);
    }

    private final ObjectNode inputSchema;
    private final SimpleArgumentCheck simple;
    private volatile Schema schema;

    private ArgumentValidator(ObjectNode inputSchema, SimpleArgumentCheck simple, Schema schema) {
        this.inputSchema = inputSchema;
        this.simple = simple;
        this.schema = schema;
    }

    static ArgumentValidator of(ObjectNode inputSchema) {
        SimpleArgumentCheck simple = SimpleArgumentCheck.compile(inputSchema);
        return new ArgumentValidator(inputSchema, simple, simple == null ? Registry.INSTANCE.getSchema(inputSchema) : null);
    }

    private Schema schema() {
        Schema s = schema;
        if (s == null) {
            synchronized (this) {
                s = schema;
                if (s == null) {
                    s = Registry.INSTANCE.getSchema(inputSchema);
                    schema = s;
                }
            }
        }
        return s;
    }

    /** Returns one readable line per violation (at most ten), empty when the arguments are valid. */
    List<String> validate(JsonNode arguments) {
        if (simple != null && simple.accepts(arguments)) {
            return List.of();
        }
        List<Error> errors = schema().validate(arguments);
        if (errors.isEmpty()) {
            return List.of();
        }
        List<String> messages = new ArrayList<>(Math.min(errors.size(), MAX_REPORTED));
        for (Error e : errors) {
            if (messages.size() == MAX_REPORTED) {
                messages.add("… and " + (errors.size() - MAX_REPORTED) + " more");
                break;
            }
            String at = e.getInstanceLocation() == null ? "" : e.getInstanceLocation().toString();
            messages.add(at.isEmpty() || at.equals("$") ? e.getMessage() : at + ": " + e.getMessage());
        }
        return messages;
    }
}
