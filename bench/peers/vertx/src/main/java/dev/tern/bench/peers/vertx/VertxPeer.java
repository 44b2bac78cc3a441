package dev.tern.bench.peers.vertx;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

import dev.tern.bench.peers.UserDirectory;

/**
 * Vert.x serving the user directory at {@code http://127.0.0.1:PORT} the way a Vert.x user would write it by hand:
 * <ul>
 * <li>{@code GET /users/:id}: the user as JSON, serialized per request with Jackson;</li>
 * <li>{@code POST /mcp}: a minimal stateless 2026-07-28 MCP endpoint answering {@code tools/call get_user} with the
 * same JSON as its one text content block (no schema validation, no structured output, no header checks); any other
 * method gets a JSON-RPC error.</li>
 * </ul>
 * Usage: {@code java -jar peer-vertx.jar PORT}. One HTTP server on one event loop, Vert.x's defaults otherwise.
 */
public final class VertxPeer {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final String JSON = "application/json";

    private final UserDirectory users;

    private VertxPeer(UserDirectory users) {
        this.users = users;
    }

    public static void main(String[] args) {
        if (args.length != 1) {
            System.err.println("usage: java -jar peer-vertx.jar PORT");
            System.exit(2);
        }
        int port = Integer.parseInt(args[0]);
        VertxPeer peer = new VertxPeer(UserDirectory.generate(1_000));
        Vertx vertx = Vertx.vertx();
        Router router = Router.router(vertx);
        router.get("/users/:id").handler(peer::user);
        router.post("/mcp").handler(peer::mcp);
        vertx.createHttpServer()
                .requestHandler(router)
                .listen(port, "127.0.0.1")
                .onSuccess(server -> System.err.println("peer-vertx: serving http://127.0.0.1:" + port
                        + "/users/:id and /mcp"))
                .onFailure(failure -> {
                    failure.printStackTrace();
                    System.exit(1);
                });
    }

    private void user(RoutingContext context) {
        UserDirectory.User user = users.find(context.pathParam("id"));
        HttpServerResponse response = context.response();
        if (user == null) {
            response.setStatusCode(404).end();
            return;
        }
        try {
            response.putHeader("content-type", JSON).end(Buffer.buffer(MAPPER.writeValueAsBytes(user)));
        } catch (JsonProcessingException e) {
            context.fail(e);
        }
    }

    private void mcp(RoutingContext context) {
        context.request().body().onSuccess(body -> {
            try {
                context.response().putHeader("content-type", JSON).end(Buffer.buffer(answer(body.getBytes())));
            } catch (java.io.IOException e) {
                context.response().setStatusCode(400).end();
            }
        }).onFailure(context::fail);
    }

    private byte[] answer(byte[] body) throws java.io.IOException {
        JsonNode request = MAPPER.readTree(body);
        ObjectNode reply = MAPPER.createObjectNode().put("jsonrpc", "2.0");
        reply.set("id", request.get("id"));
        JsonNode params = request.path("params");
        UserDirectory.User user = null;
        if ("tools/call".equals(request.path("method").asText()) && "get_user".equals(params.path("name").asText())) {
            user = users.find(params.path("arguments").path("id").asText());
        }
        if (user == null) {
            reply.putObject("error").put("code", -32602).put("message", "unknown method, tool or user");
        } else {
            ObjectNode result = reply.putObject("result");
            result.putArray("content").addObject().put("type", "text").put("text", MAPPER.writeValueAsString(user));
        }
        return MAPPER.writeValueAsBytes(reply);
    }
}
