package dev.tern.examples;

import java.util.List;
import java.util.Optional;

import dev.tern.examples.UserDirectory.User;
import dev.tern.protocol.Json;
import dev.tern.protocol.model.Content;
import dev.tern.protocol.model.GetPromptResult;
import dev.tern.protocol.model.PromptMessage;
import dev.tern.protocol.model.ReadResourceResult;
import dev.tern.protocol.model.ResourceContents;
import dev.tern.server.Arg;
import dev.tern.server.Complete;
import dev.tern.server.Hint;
import dev.tern.server.McpServer;
import dev.tern.server.Prompt;
import dev.tern.server.RequestContext;
import dev.tern.server.Resource;
import dev.tern.server.Tool;
import dev.tern.server.ToolException;

/**
 * The user directory of the benchmark write-ups: {@code get_user} returns a ~330-byte user record, with search,
 * paginated listing, a {@code user://{id}} resource template with id completion, and a prompt.
 */
public final class UserDirectoryServer {
    /** The OAuth scope every tool, resource and prompt of the directory needs: they all only read. */
    public static final String READ_SCOPE = "users:read";

    private final UserDirectory directory;

    public UserDirectoryServer(UserDirectory directory) {
        this.directory = directory;
    }

    public static McpServer create() {
        return create(UserDirectory.generate(1_000));
    }

    /**
     * The directory of 1,000 users, with its plain-REST baseline mounted on {@code routes}: {@code GET /users/{id}}
     * answers the same user record as {@code get_user}'s {@code structuredContent}, 404 for an unknown id.
     */
    public static McpServer create(Examples.Routes routes) {
        return create(routes, java.util.function.UnaryOperator.identity());
    }

    static McpServer create(Examples.Routes routes, java.util.function.UnaryOperator<McpServer.Builder> settings) {
        UserDirectory directory = UserDirectory.generate(1_000);
        routes.get("/users/{id}", "Fetch one user by id: the plain-REST twin of the get_user tool.",
                variables -> directory.find(variables.get("id")));
        return create(directory, settings);
    }

    public static McpServer create(UserDirectory directory) {
        return create(directory, java.util.function.UnaryOperator.identity());
    }

    private static McpServer create(UserDirectory directory,
            java.util.function.UnaryOperator<McpServer.Builder> settings) {
        return settings.apply(McpServer.builder())
                .info("tern-user-directory", "0.1.0")
                .instructions("A directory of users. Use get_user for one user by id, search_users to find users, "
                        + "list_users to page through all of them.")
                .register(new UserDirectoryServer(directory))
                .build();
    }

    /** One page of users and the cursor of the next page, if any. */
    public record UserPage(List<User> users, String nextCursor, int total) {
    }

    /** Users matching a query. */
    public record SearchResult(List<User> users, int count) {
    }

    @Tool(name = "get_user", scopes = READ_SCOPE, title = "Get user", description = "Fetch one user by id.", readOnly = Hint.TRUE,
            idempotent = Hint.TRUE, nonBlocking = true)
    public User getUser(@Arg(description = "The user's id, e.g. \"42\"") String id) {
        return directory.find(id).orElseThrow(() -> new ToolException("No user with id " + id));
    }

    @Tool(name = "search_users", scopes = READ_SCOPE, title = "Search users",
            description = "Find users whose name, username, email, title or city contains the query.", readOnly = Hint.TRUE,
            nonBlocking = true)
    public SearchResult searchUsers(@Arg(description = "Text to look for, case-insensitive") String query,
            @Arg(description = "Most users to return (1-100)", defaultValue = "10") int limit) {
        if (query.isBlank()) {
            throw new ToolException("query must not be blank");
        }
        if (limit < 1 || limit > 100) {
            throw new ToolException("limit must be between 1 and 100, was " + limit);
        }
        List<User> found = directory.search(query, limit);
        return new SearchResult(found, found.size());
    }

    @Tool(name = "list_users", scopes = READ_SCOPE, title = "List users", description = "Page through all users in id order.", readOnly = Hint.TRUE,
            nonBlocking = true)
    public UserPage listUsers(@Arg(description = "The nextCursor of the previous page", required = false) Optional<String> cursor,
            @Arg(description = "Users per page (1-100)", defaultValue = "20") int limit) {
        if (limit < 1 || limit > 100) {
            throw new ToolException("limit must be between 1 and 100, was " + limit);
        }
        int offset = 0;
        if (cursor.isPresent()) {
            try {
                offset = Integer.parseInt(cursor.get());
            } catch (NumberFormatException e) {
                throw new ToolException("invalid cursor: " + cursor.get());
            }
            if (offset < 0 || offset > directory.size()) {
                throw new ToolException("invalid cursor: " + cursor.get());
            }
        }
        List<User> users = directory.page(offset, limit);
        int next = offset + users.size();
        return new UserPage(users, next < directory.size() ? Integer.toString(next) : null, directory.size());
    }

    @Resource(uri = "user://{id}", scopes = READ_SCOPE, name = "user", title = "User record", description = "One user as JSON.",
            mimeType = "application/json", nonBlocking = true)
    public ReadResourceResult user(String id, String uri) {
        User user = directory.find(id).orElse(null);
        if (user == null) {
            return null;
        }
        return ReadResourceResult.of(ResourceContents.text(uri, "application/json", Json.mapper().writeValueAsString(user)));
    }

    @Resource(uri = "users://stats", scopes = READ_SCOPE, name = "stats", title = "Directory statistics", mimeType = "application/json",
            nonBlocking = true)
    public Stats stats() {
        long active = directory.page(0, directory.size()).stream().filter(User::active).count();
        return new Stats(directory.size(), active);
    }

    public record Stats(int users, long active) {
    }

    @Complete(resource = "user://{id}", argument = "id")
    public List<String> completeUserId(String prefix) {
        return directory.idsStartingWith(prefix, 1_000);
    }

    @Complete(prompt = "summarize_user", argument = "id")
    public List<String> completePromptUserId(String prefix) {
        return completeUserId(prefix);
    }

    @Prompt(name = "summarize_user", scopes = READ_SCOPE, title = "Summarize a user", description = "Ask for a short summary of one user.",
            nonBlocking = true)
    public GetPromptResult summarizeUser(@Arg(description = "The user's id") String id, RequestContext context) {
        User user = directory.find(id).orElseThrow(() -> new dev.tern.protocol.McpException(
                dev.tern.protocol.ErrorCodes.INVALID_PARAMS, "No user with id " + id));
        String uri = "user://" + id;
        return new GetPromptResult("Summary of user " + id, List.of(
                PromptMessage.user(Content.text("Summarize this user in two sentences for a colleague.")),
                PromptMessage.user(Content.resource(ResourceContents.text(uri, "application/json",
                        Json.mapper().writeValueAsString(user))))), null);
    }
}
