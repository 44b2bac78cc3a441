package dev.tern.server;

import java.util.Objects;

import dev.tern.protocol.Json;

import tools.jackson.databind.node.ObjectNode;

import org.jspecify.annotations.Nullable;

/**
 * Something a handler asks the client for: an elicitation, a sampling request or the roots. In a legacy session it
 * is sent as a server-to-client request; in 2026-07-28 it goes out in an {@code input_required} result.
 *
 * @param params the request's params, or {@code null} (roots)
 */
public record InputRequest(String method, @Nullable ObjectNode params) {
    public InputRequest {
        Objects.requireNonNull(method, "method");
    }

    /** A form elicitation: a message and a flat JSON Schema of primitive properties. */
    public static InputRequest elicit(String message, ObjectNode requestedSchema) {
        ObjectNode p = Json.object();
        p.put("message", message);
        p.set("requestedSchema", requestedSchema);
        return new InputRequest("elicitation/create", p);
    }

    /** A URL elicitation: the user completes an interaction at {@code url} out of band. */
    public static InputRequest elicitUrl(String message, String url, String elicitationId) {
        ObjectNode p = Json.object();
        p.put("mode", "url");
        p.put("message", message);
        p.put("url", url);
        p.put("elicitationId", elicitationId);
        return new InputRequest("elicitation/create", p);
    }

    /** A sampling request with the params of {@code sampling/createMessage}. */
    public static InputRequest sample(ObjectNode params) {
        return new InputRequest("sampling/createMessage", params);
    }

    public static InputRequest roots() {
        return new InputRequest("roots/list", null);
    }

    boolean isUrlElicitation() {
        return method.equals("elicitation/create") && params != null && "url".equals(params.path("mode").asString(""));
    }
}
