package dev.tern.server;

import java.util.Map;

import dev.tern.protocol.model.ReadResourceResult;

import org.jspecify.annotations.Nullable;

/** Serves {@code resources/read} for a static resource or a template. */
@FunctionalInterface
public interface ResourceHandler {
    /**
     * @param uri the URI asked for
     * @param variables the template variables matched in {@code uri} (empty for a static resource)
     * @return the contents, or {@code null} when there is no such resource
     */
    @Nullable ReadResourceResult read(RequestContext context, String uri, Map<String, String> variables) throws Exception;
}
