package dev.tern.server;

import java.util.Map;

import dev.tern.protocol.model.GetPromptResult;

/** Serves {@code prompts/get} for one prompt. */
@FunctionalInterface
public interface PromptHandler {
    GetPromptResult get(RequestContext context, Map<String, String> arguments) throws Exception;
}
