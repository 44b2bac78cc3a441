package dev.tern.examples;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Set;
import java.util.function.UnaryOperator;

import dev.tern.protocol.Json;
import dev.tern.protocol.McpException;
import dev.tern.protocol.model.CallToolResult;
import dev.tern.protocol.model.Content;
import dev.tern.server.Caller;
import dev.tern.server.McpServer;
import dev.tern.server.ToolSpec;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A tool that calls another service on its caller's behalf: it asks the server's token exchange (RFC 8693) for a
 * token naming that service, and shows who the token speaks for. Served with an issuer and a token exchange,
 * {@code tern serve --example downstream --auth-issuer … --auth-token-exchange … --auth-client-id …}.
 */
public final class DownstreamServer {
    /** The one tool: the claims of the token the caller's token was exchanged for. */
    public static final String TOOL = "downstream_token";

    private DownstreamServer() {
    }

    static McpServer create(UnaryOperator<McpServer.Builder> settings) {
        return settings.apply(McpServer.builder())
                .info("tern-downstream", "0.1.0")
                .tool(ToolSpec.builder(TOOL)
                        .description("Exchanges the caller's token for one naming another service (audience) and "
                                + "tells whom and what it was issued for; the token itself is never shown.")
                        .inputSchema(inputSchema())
                        .handler((ctx, args) -> {
                            Caller caller = ctx.caller();
                            if (caller == null) {
                                throw McpException.invalidParams("No caller: serve this example with --auth-issuer");
                            }
                            String token = caller.downstreamToken(URI.create(args.path("audience").asString()),
                                    Set.of());
                            ObjectNode claims = claims(token);
                            ObjectNode shown = Json.object();
                            shown.set("aud", claims.get("aud"));
                            shown.set("sub", claims.get("sub"));
                            shown.set("iss", claims.get("iss"));
                            return new CallToolResult(java.util.List.of(Content.text(shown.toString())), shown,
                                    null, null);
                        })
                        .build())
                .build();
    }

    private static ObjectNode inputSchema() {
        ObjectNode schema = Json.object().put("type", "object");
        schema.putObject("properties").putObject("audience").put("type", "string")
                .put("description", "The URI of the service the token is for");
        schema.putArray("required").add("audience");
        return schema;
    }

    /** The claims of a JWT, read without checking it: the downstream service checks it, this tool only shows it. */
    private static ObjectNode claims(String jwt) {
        String[] parts = jwt.split("\\.");
        if (parts.length < 2) {
            return Json.object();
        }
        JsonNode payload = Json.mapper().readTree(new String(Base64.getUrlDecoder().decode(parts[1]),
                StandardCharsets.UTF_8));
        return payload instanceof ObjectNode o ? o : Json.object();
    }
}
