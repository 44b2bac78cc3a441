package dev.tern.examples;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

import dev.tern.server.McpServer;

/** The example servers, by name. */
public final class Examples {
    public static final String DEFAULT = "user-directory";

    private static final Map<String, Supplier<McpServer>> EXAMPLES = new LinkedHashMap<>();

    static {
        EXAMPLES.put("user-directory", UserDirectoryServer::create);
        EXAMPLES.put("conformance", ConformanceServer::create);
    }

    private Examples() {
    }

    public static Set<String> names() {
        return EXAMPLES.keySet();
    }

    /** Builds the named example; throws {@link IllegalArgumentException} for an unknown name. */
    public static McpServer create(String name) {
        Supplier<McpServer> factory = EXAMPLES.get(name);
        if (factory == null) {
            throw new IllegalArgumentException("Unknown example \"" + name + "\" (expected one of " + names() + ")");
        }
        return factory.get();
    }
}
