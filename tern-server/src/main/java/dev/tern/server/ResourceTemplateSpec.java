package dev.tern.server;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

import dev.tern.protocol.Json;
import dev.tern.protocol.model.Annotations;
import dev.tern.protocol.model.Icon;
import dev.tern.protocol.model.ResourceTemplate;

import tools.jackson.databind.json.JsonMapper;

import org.jspecify.annotations.Nullable;

/** A resource template: its listing, its matcher, its handler and completers of its variables. Immutable. */
public final class ResourceTemplateSpec {
    private final ResourceTemplate template;
    private final UriTemplate uriTemplate;
    private final ResourceHandler handler;
    /** Makes the handler for a server's mapper; null when the handler does not depend on it. */
    private final Function<JsonMapper, ResourceHandler> handlerFor;
    private final JsonMapper mapper;
    private final Map<String, CompletionHandler> completions;
    private final boolean nonBlocking;
    private final CachePolicy cache;
    private final java.util.Set<String> scopes;

    private ResourceTemplateSpec(ResourceTemplate template, ResourceHandler handler,
            Map<String, CompletionHandler> completions, boolean nonBlocking,
            Function<JsonMapper, ResourceHandler> handlerFor, JsonMapper mapper, CachePolicy cache,
            java.util.Set<String> scopes) {
        this.cache = cache;
        this.scopes = scopes;
        this.nonBlocking = nonBlocking;
        this.template = template;
        this.uriTemplate = UriTemplate.of(template.uriTemplate());
        this.handler = handler;
        this.completions = Map.copyOf(completions);
        this.handlerFor = handlerFor;
        this.mapper = mapper;
    }

    public static Builder builder(String uriTemplate, String name) {
        return new Builder(uriTemplate, name);
    }

    public ResourceTemplate template() {
        return template;
    }

    public UriTemplate uriTemplate() {
        return uriTemplate;
    }

    public ResourceHandler handler() {
        return handler;
    }

    public Map<String, CompletionHandler> completions() {
        return completions;
    }

    /** How long results are kept and for whom; {@code null}: not cached. See {@link FeatureBuilder#cache}. */
    public @Nullable CachePolicy cache() {
        return cache;
    }

    /** Whether the handler promised never to block: see {@link ToolSpec.Builder#nonBlocking(boolean)}. */
    public boolean nonBlocking() {
        return nonBlocking;
    }

    /** The scopes a caller needs to read its resources: see {@link FeatureBuilder#scopes}. */
    public java.util.Set<String> scopes() {
        return scopes;
    }

    /** This template with its handler made for {@code mapper}. */
    ResourceTemplateSpec bind(JsonMapper mapper) {
        return handlerFor == null || mapper == this.mapper ? this
                : new ResourceTemplateSpec(template, handlerFor.apply(mapper), completions, nonBlocking, handlerFor,
                        mapper, cache, scopes);
    }

    public static final class Builder extends FeatureBuilder<Builder> {
        private final String uriTemplate;
        private final String name;
        private String mimeType;
        private Annotations annotations;
        private ResourceHandler handler;
        private Function<JsonMapper, ResourceHandler> handlerFor;
        private final Map<String, CompletionHandler> completions = new HashMap<>();

        @Override
        Builder self() {
            return this;
        }

        private Builder(String uriTemplate, String name) {
            this.uriTemplate = Objects.requireNonNull(uriTemplate, "uriTemplate");
            this.name = Objects.requireNonNull(name, "name");
        }

        public Builder mimeType(@Nullable String mimeType) {
            this.mimeType = mimeType;
            return this;
        }

        public Builder annotations(@Nullable Annotations annotations) {
            this.annotations = annotations;
            return this;
        }

        public Builder handler(ResourceHandler handler) {
            this.handler = Objects.requireNonNull(handler, "handler");
            this.handlerFor = null;
            return this;
        }

        /** Serves with the handler {@code handlerFor} makes for the mapper of the server it is registered with. */
        Builder handlerFor(Function<JsonMapper, ResourceHandler> handlerFor) {
            this.handlerFor = Objects.requireNonNull(handlerFor, "handlerFor");
            this.handler = null;
            return this;
        }

        /** Completes values of one template variable. */
        public Builder complete(String variable, CompletionHandler completer) {
            completions.put(Objects.requireNonNull(variable, "variable"), Objects.requireNonNull(completer, "completer"));
            return this;
        }

        public ResourceTemplateSpec build() {
            if (handler == null && handlerFor == null) {
                throw new IllegalStateException("resource template " + uriTemplate + ": no handler");
            }
            UriTemplate parsed = UriTemplate.of(uriTemplate);
            for (String variable : completions.keySet()) {
                if (!parsed.variables().contains(variable)) {
                    throw new IllegalArgumentException("resource template " + uriTemplate + ": no variable " + variable);
                }
            }
            return new ResourceTemplateSpec(new ResourceTemplate(uriTemplate, name, title, description, mimeType,
                    annotations, icons, meta), handlerFor != null ? handlerFor.apply(Json.mapper()) : handler,
                    completions, nonBlocking, handlerFor, Json.mapper(), cache, scopes);
        }
    }
}
