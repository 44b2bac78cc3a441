package dev.tern.server;

import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

import dev.tern.protocol.Json;
import dev.tern.protocol.model.Annotations;
import dev.tern.protocol.model.Icon;
import dev.tern.protocol.model.ReadResourceResult;
import dev.tern.protocol.model.ResourceContents;
import dev.tern.protocol.model.ResourceDefinition;

import tools.jackson.databind.json.JsonMapper;

import org.jspecify.annotations.Nullable;

/** A static resource: what {@code resources/list} shows of it and the handler that reads it. Immutable. */
public final class ResourceSpec {
    private final ResourceDefinition resource;
    private final ResourceHandler handler;
    /** Makes the handler for a server's mapper; null when the handler does not depend on it. */
    private final Function<JsonMapper, ResourceHandler> handlerFor;
    private final JsonMapper mapper;
    private final boolean nonBlocking;
    private final CachePolicy cache;
    private final java.util.Set<String> scopes;

    private ResourceSpec(ResourceDefinition resource, ResourceHandler handler, boolean nonBlocking,
            Function<JsonMapper, ResourceHandler> handlerFor, JsonMapper mapper, CachePolicy cache,
            java.util.Set<String> scopes) {
        this.cache = cache;
        this.scopes = scopes;
        this.resource = resource;
        this.handler = handler;
        this.nonBlocking = nonBlocking;
        this.handlerFor = handlerFor;
        this.mapper = mapper;
    }

    public static Builder builder(String uri, String name) {
        return new Builder(uri, name);
    }

    public String uri() {
        return resource.uri();
    }

    public ResourceDefinition resource() {
        return resource;
    }

    public ResourceHandler handler() {
        return handler;
    }

    /** Whether the handler promised never to block: see {@link ToolSpec.Builder#nonBlocking(boolean)}. */
    public boolean nonBlocking() {
        return nonBlocking;
    }

    /** How long results are kept and for whom; {@code null}: not cached. See {@link FeatureBuilder#cache}. */
    public @Nullable CachePolicy cache() {
        return cache;
    }

    /** The scopes a caller needs to read it: see {@link FeatureBuilder#scopes}. */
    public java.util.Set<String> scopes() {
        return scopes;
    }

    /** This resource with its handler made for {@code mapper}. */
    ResourceSpec bind(JsonMapper mapper) {
        return handlerFor == null || mapper == this.mapper ? this
                : new ResourceSpec(resource, handlerFor.apply(mapper), nonBlocking, handlerFor, mapper, cache, scopes);
    }

    public static final class Builder extends FeatureBuilder<Builder> {
        private final String uri;
        private final String name;
        private String mimeType;
        private Long size;
        private Annotations annotations;
        private ResourceHandler handler;
        private Function<JsonMapper, ResourceHandler> handlerFor;

        @Override
        Builder self() {
            return this;
        }

        private Builder(String uri, String name) {
            this.uri = Objects.requireNonNull(uri, "uri");
            this.name = Objects.requireNonNull(name, "name");
        }

        public Builder mimeType(@Nullable String mimeType) {
            this.mimeType = mimeType;
            return this;
        }

        public Builder size(long size) {
            this.size = size;
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

        /** Serves fixed text. */
        public Builder text(String text) {
            ResourceContents contents = ResourceContents.text(uri, mimeType == null ? "text/plain" : mimeType, text);
            return handler((ctx, u, vars) -> ReadResourceResult.of(contents));
        }

        /** Serves fixed bytes as a base64 blob. */
        public Builder blob(byte[] bytes) {
            ResourceContents contents = ResourceContents.blob(uri,
                    mimeType == null ? "application/octet-stream" : mimeType, Base64.getEncoder().encodeToString(bytes));
            if (size == null) {
                size = (long) bytes.length;
            }
            return handler((ctx, u, vars) -> ReadResourceResult.of(contents));
        }

        public ResourceSpec build() {
            if (handler == null && handlerFor == null) {
                throw new IllegalStateException("resource " + uri + ": no handler");
            }
            if (UriTemplate.isTemplate(uri)) {
                throw new IllegalArgumentException("resource " + uri + ": looks like a template; use ResourceTemplateSpec");
            }
            return new ResourceSpec(new ResourceDefinition(uri, name, title, description, mimeType, size,
                    annotations, icons, meta), handlerFor != null ? handlerFor.apply(Json.mapper()) : handler,
                    nonBlocking, handlerFor, Json.mapper(), cache, scopes);
        }
    }
}
