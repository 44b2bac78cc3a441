package dev.tern.server;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import dev.tern.protocol.model.Icon;
import dev.tern.protocol.model.PromptArgument;
import dev.tern.protocol.model.PromptDefinition;

import org.jspecify.annotations.Nullable;

/** A prompt: its listing, its handler and completers of its arguments. Immutable. */
public final class PromptSpec {
    private final PromptDefinition prompt;
    private final PromptHandler handler;
    private final Map<String, CompletionHandler> completions;
    private final boolean nonBlocking;
    private final CachePolicy cache;
    private final java.util.Set<String> scopes;

    private PromptSpec(PromptDefinition prompt, PromptHandler handler,
            Map<String, CompletionHandler> completions, boolean nonBlocking, CachePolicy cache,
            java.util.Set<String> scopes) {
        this.cache = cache;
        this.scopes = scopes;
        this.nonBlocking = nonBlocking;
        this.prompt = prompt;
        this.handler = handler;
        this.completions = Map.copyOf(completions);
    }

    public static Builder builder(String name) {
        return new Builder(name);
    }

    public String name() {
        return prompt.name();
    }

    public PromptDefinition prompt() {
        return prompt;
    }

    public PromptHandler handler() {
        return handler;
    }

    /** The scopes a caller needs to get it: see {@link FeatureBuilder#scopes}. */
    public java.util.Set<String> scopes() {
        return scopes;
    }

    public Map<String, CompletionHandler> completions() {
        return completions;
    }

    /** Whether the handler promised never to block: see {@link ToolSpec.Builder#nonBlocking(boolean)}. */
    public boolean nonBlocking() {
        return nonBlocking;
    }

    /** How long results are kept and for whom; {@code null}: not cached. See {@link FeatureBuilder#cache}. */
    public @Nullable CachePolicy cache() {
        return cache;
    }

    public static final class Builder extends FeatureBuilder<Builder> {
        private final String name;
        private final List<PromptArgument> arguments = new ArrayList<>();
        private PromptHandler handler;
        private final Map<String, CompletionHandler> completions = new HashMap<>();

        @Override
        Builder self() {
            return this;
        }

        private Builder(String name) {
            this.name = Objects.requireNonNull(name, "name");
        }

        public Builder argument(String name, @Nullable String description, boolean required) {
            arguments.add(new PromptArgument(name, null, description, required));
            return this;
        }

        public Builder handler(PromptHandler handler) {
            this.handler = Objects.requireNonNull(handler, "handler");
            return this;
        }

        public Builder complete(String argument, CompletionHandler completer) {
            completions.put(Objects.requireNonNull(argument, "argument"), Objects.requireNonNull(completer, "completer"));
            return this;
        }

        public PromptSpec build() {
            if (handler == null) {
                throw new IllegalStateException("prompt " + name + ": no handler");
            }
            for (String argument : completions.keySet()) {
                if (arguments.stream().noneMatch(a -> a.name().equals(argument))) {
                    throw new IllegalArgumentException("prompt " + name + ": no argument " + argument + " to complete");
                }
            }
            return new PromptSpec(new PromptDefinition(name, title, description,
                    arguments.isEmpty() ? null : List.copyOf(arguments), icons, meta), handler, completions, nonBlocking, cache, scopes);
        }
    }
}
