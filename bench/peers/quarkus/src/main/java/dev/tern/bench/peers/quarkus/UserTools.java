package dev.tern.bench.peers.quarkus;

import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolCallException;

import dev.tern.bench.peers.UserDirectory;

/**
 * The two benchmark tools, declared the way the extension's guide shows: {@code get_user {"id"}} returns the
 * user record as structured content (the extension adds the same JSON as a text block), {@code echo {"text"}}
 * returns its text. The schemas listed are those of {@code tools.json} ({@link ReferenceSchemas}).
 */
public class UserTools {
    private final UserDirectory directory = UserDirectory.generate(1_000);

    @Tool(name = "get_user", title = "Get user", description = "Fetch one user by id.", structuredContent = true,
            annotations = @Tool.Annotations(readOnlyHint = true, idempotentHint = true, destructiveHint = false),
            inputSchema = @Tool.InputSchema(generator = ReferenceSchemas.class),
            outputSchema = @Tool.OutputSchema(generator = ReferenceSchemas.class))
    UserDirectory.User getUser(@ToolArg(description = "The user's id, e.g. \"42\"") String id) {
        UserDirectory.User user = directory.find(id);
        if (user == null) {
            throw new ToolCallException("No user with id " + id);
        }
        return user;
    }

    @Tool(name = "echo", title = "Echo", description = "Return the text it is given.",
            annotations = @Tool.Annotations(readOnlyHint = true, idempotentHint = true, destructiveHint = false),
            inputSchema = @Tool.InputSchema(generator = ReferenceSchemas.class))
    String echo(@ToolArg(description = "The text to return") String text) {
        return text;
    }
}
