package dev.tern.server;

import java.util.LinkedHashSet;
import java.util.Set;

import dev.tern.protocol.JsonRpcRequest;

import tools.jackson.databind.JsonNode;

/** The one home of the scope rules: which scopes a request needs, and whether a caller holds them. */
final class Scopes {
    private Scopes() {
    }

    /** RFC 6749 §3.3: {@code scope-token = 1*( %x21 / %x23-5B / %x5D-7E )}. */
    static Set<String> of(String... scopes) {
        Set<String> all = new LinkedHashSet<>();
        for (String scope : scopes) {
            boolean valid = scope != null && !scope.isEmpty();
            for (int i = 0; valid && i < scope.length(); i++) {
                char c = scope.charAt(i);
                valid = c == 0x21 || (c >= 0x23 && c <= 0x5B) || (c >= 0x5D && c <= 0x7E);
            }
            if (!valid) {
                throw new IllegalArgumentException("scope: " + scope
                        + " (expected: printable ASCII without space, quote or backslash)");
            }
            all.add(scope);
        }
        return Set.copyOf(all);
    }

    /** Whether {@code caller} may use what needs {@code needed}; everyone may where no caller is known. */
    static boolean permits(Caller caller, Set<String> needed) {
        return caller == null || needed.isEmpty() || caller.scopes().containsAll(needed);
    }

    /** The scopes a request needs: those of the tool it calls, the resource it reads, the prompt it gets. */
    static Set<String> needed(FeatureRegistry registry, JsonRpcRequest request) {
        JsonNode params = request.params();
        if (params == null) {
            return Set.of();
        }
        switch (request.method()) {
            case "tools/call" -> {
                ToolSpec tool = registry.tool(params.path("name").asString(""));
                return tool == null ? Set.of() : tool.scopes();
            }
            case "prompts/get" -> {
                PromptSpec prompt = registry.prompt(params.path("name").asString(""));
                return prompt == null ? Set.of() : prompt.scopes();
            }
            case "resources/read", "resources/subscribe" -> {
                return resource(registry, params.path("uri").asString(""));
            }
            default -> {
                return Set.of();
            }
        }
    }

    static Set<String> resource(FeatureRegistry registry, String uri) {
        ResourceSpec fixed = registry.resource(uri);
        if (fixed != null) {
            return fixed.scopes();
        }
        for (ResourceTemplateSpec t : registry.templates()) {
            if (t.uriTemplate().match(uri).isPresent()) {
                return t.scopes();
            }
        }
        return Set.of();
    }
}
