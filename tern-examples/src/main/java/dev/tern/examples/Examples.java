package dev.tern.examples;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

import dev.tern.server.McpServer;
import dev.tern.server.observe.McpObserver;

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

    /** An example made with its routes and the observer its server reports to. */
    private interface Factory {
        McpServer create(Routes routes, McpObserver observer);
    }

    private static final Map<String, Factory> EXAMPLES = new LinkedHashMap<>();

    static {
        EXAMPLES.put("user-directory", UserDirectoryServer::create);
        EXAMPLES.put("conformance", (routes, observer) -> ConformanceServer.create(observer));
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
        return create(name, routes, McpObserver.off());
    }

    /** As {@link #create(String, Routes)}, with the server reporting to {@code observer}. */
    public static McpServer create(String name, Routes routes, McpObserver observer) {
        Factory factory = EXAMPLES.get(name);
        if (factory == null) {
            throw new IllegalArgumentException("Unknown example \"" + name + "\" (expected one of " + names() + ")");
        }
        return factory.create(routes, observer);
    }
}
