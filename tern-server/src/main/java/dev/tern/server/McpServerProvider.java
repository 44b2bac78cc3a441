package dev.tern.server;

/**
 * Contributes tools, resources, prompts and settings to a server built elsewhere, such as by
 * {@code tern serve --jar my-tools.jar}; providers are found by {@link java.util.ServiceLoader} through a
 * {@code META-INF/services/dev.tern.server.McpServerProvider} file that names the implementing classes.
 */
public interface McpServerProvider {

    /** Adds this provider's features and settings to {@code server}, e.g. {@code server.register(new MyTools())}. */
    void contribute(McpServer.Builder server);
}
