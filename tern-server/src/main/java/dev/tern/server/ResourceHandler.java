package dev.tern.server;

import java.util.Map;

import dev.tern.protocol.model.ReadResourceResult;

/** Serves {@code resources/read} for a static resource or a template. */
@FunctionalInterface
public interface ResourceHandler {
    /**
     * @param uri the URI asked for
     * @param variables the template variables matched in {@code uri} (empty for a static resource)
     */
    ReadResourceResult read(RequestContext context, String uri, Map<String, String> variables) throws Exception;
}
