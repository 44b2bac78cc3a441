package dev.tern.server;

import java.util.ArrayList;
import java.util.List;

import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** Validates arguments against a tool's input schema, compiled once when the tool is built. Thread-safe. */
final class ArgumentValidator {
    private static final SchemaRegistry REGISTRY = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);
    private static final int MAX_REPORTED = 10;

    private final Schema schema;

    private ArgumentValidator(Schema schema) {
        this.schema = schema;
    }

    static ArgumentValidator of(ObjectNode inputSchema) {
        return new ArgumentValidator(REGISTRY.getSchema(inputSchema));
    }

    /** Returns one readable line per violation (at most ten), empty when the arguments are valid. */
    List<String> validate(JsonNode arguments) {
        List<Error> errors = schema.validate(arguments);
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
