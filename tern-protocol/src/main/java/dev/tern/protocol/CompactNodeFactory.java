package dev.tern.protocol;

import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/** Makes object nodes whose members are a {@link CompactObjectMap}: the nodes of Tern's mappers and {@link Json#object}. */
final class CompactNodeFactory extends JsonNodeFactory {
    private static final long serialVersionUID = 1L;

    static final CompactNodeFactory INSTANCE = new CompactNodeFactory();

    private CompactNodeFactory() {
    }

    @Override
    public ObjectNode objectNode() {
        return new ObjectNode(this, new CompactObjectMap());
    }
}
