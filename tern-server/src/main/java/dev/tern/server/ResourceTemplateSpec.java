package dev.tern.server;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import dev.tern.protocol.model.Annotations;
import dev.tern.protocol.model.Icon;
import dev.tern.protocol.model.ResourceTemplate;

/** A resource template: its listing, its matcher, its handler and completers of its variables. Immutable. */
public final class ResourceTemplateSpec {
    private final ResourceTemplate template;
    private final UriTemplate uriTemplate;
    private final ResourceHandler handler;
    private final Map<String, CompletionHandler> completions;
    private final boolean nonBlocking;

    private ResourceTemplateSpec(ResourceTemplate template, ResourceHandler handler,
            Map<String, CompletionHandler> completions, boolean nonBlocking) {
        this.nonBlocking = nonBlocking;
        this.template = template;
        this.uriTemplate = UriTemplate.of(template.uriTemplate());
        this.handler = handler;
        this.completions = Map.copyOf(completions);
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

    /** Whether the handler promised never to block: see {@link ToolSpec.Builder#nonBlocking(boolean)}. */
    public boolean nonBlocking() {
        return nonBlocking;
    }

    public static final class Builder extends FeatureBuilder<Builder> {
        private final String uriTemplate;
        private final String name;
        private String mimeType;
        private Annotations annotations;
        private ResourceHandler handler;
        private final Map<String, CompletionHandler> completions = new HashMap<>();

        @Override
        Builder self() {
            return this;
        }

        private Builder(String uriTemplate, String name) {
            this.uriTemplate = Objects.requireNonNull(uriTemplate, "uriTemplate");
            this.name = Objects.requireNonNull(name, "name");
        }

        public Builder mimeType(String mimeType) {
            this.mimeType = mimeType;
            return this;
        }

        public Builder annotations(Annotations annotations) {
            this.annotations = annotations;
            return this;
        }

        public Builder handler(ResourceHandler handler) {
            this.handler = Objects.requireNonNull(handler, "handler");
            return this;
        }

        /** Completes values of one template variable. */
        public Builder complete(String variable, CompletionHandler completer) {
            completions.put(Objects.requireNonNull(variable, "variable"), Objects.requireNonNull(completer, "completer"));
            return this;
        }

        public ResourceTemplateSpec build() {
            if (handler == null) {
                throw new IllegalStateException("resource template " + uriTemplate + ": no handler");
            }
            UriTemplate parsed = UriTemplate.of(uriTemplate);
            for (String variable : completions.keySet()) {
                if (!parsed.variables().contains(variable)) {
                    throw new IllegalArgumentException("resource template " + uriTemplate + ": no variable " + variable);
                }
            }
            return new ResourceTemplateSpec(new ResourceTemplate(uriTemplate, name, title, description, mimeType,
                    annotations, icons, meta), handler, completions, nonBlocking);
        }
    }
}
