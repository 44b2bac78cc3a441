package dev.tern.examples;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.UnaryOperator;

import dev.tern.server.McpServer;

/** The example servers, by name. */
public final class Examples {
    public static final String DEFAULT = "user-directory";

    /**
     * Where an example mounts the plain HTTP routes it serves next to MCP, described without any HTTP library: whoever
     * serves the example over HTTP adapts it to its transport (stdio ignores it).
     */
    @FunctionalInterface
    public interface Routes {
        /**
         * A {@code GET} route: the handler gets the values of the path's {@code {variables}} and returns the value to
         * answer as JSON (200), or nothing (404). The handler never blocks (it reads memory), so a transport may run
         * it on the thread that read the request, as it does the examples' non-blocking tools.
         */
        void get(String pathTemplate, String description, Function<Map<String, String>, Optional<?>> handler);
    }

    private static final Map<String, java.util.function.BiFunction<Routes, UnaryOperator<McpServer.Builder>, McpServer>>
            EXAMPLES = new LinkedHashMap<>();

    static {
        EXAMPLES.put("user-directory", UserDirectoryServer::create);
        EXAMPLES.put("conformance", (routes, settings) -> ConformanceServer.create(settings));
        EXAMPLES.put("downstream", (routes, settings) -> DownstreamServer.create(settings));
    }

    private Examples() {
    }

    public static Set<String> names() {
        return EXAMPLES.keySet();
    }

    /** Builds the named example; throws {@link IllegalArgumentException} for an unknown name. */
    public static McpServer create(String name) {
        return create(name, (path, description, handler) -> {
        });
    }

    /** Builds the named example and mounts its plain HTTP routes, if it has any, on {@code routes}. */
    public static McpServer create(String name, Routes routes) {
        return create(name, routes, UnaryOperator.identity());
    }

    /**
     * Builds the named example with server-wide settings of the one serving it (such as the keys shared by many
     * nodes) applied to its builder, and mounts its plain HTTP routes on {@code routes}.
     */
    public static McpServer create(String name, Routes routes, UnaryOperator<McpServer.Builder> settings) {
        var factory = EXAMPLES.get(name);
        if (factory == null) {
            throw new IllegalArgumentException("Unknown example \"" + name + "\" (expected one of " + names() + ")");
        }
        return factory.apply(routes, settings);
    }
}
