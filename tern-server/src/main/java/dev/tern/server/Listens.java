package dev.tern.server;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.tern.protocol.Json;
import dev.tern.protocol.JsonRpcNotification;
import dev.tern.protocol.JsonRpcResult;
import dev.tern.protocol.McpMeta;
import dev.tern.protocol.RequestId;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The open 2026-07-28 {@code subscriptions/listen} requests of a server, whichever transport or connection carries
 * them: a listen is acknowledged, then told of the changes it asked for until it is ended.
 */
final class Listens {
    /** The most resource URIs one listen may follow. */
    private static final int MAX_URIS = 10_000;

    private final McpServer server;
    private final Set<Listen> open = ConcurrentHashMap.newKeySet();
    private final ListChanges changes;

    Listens(McpServer server) {
        this.server = server;
        this.changes = new ListChanges(server, this::notifyListChanged);
    }

    /** One open listen: what it asked to be told of, and where its notifications go. */
    final class Listen {
        final RequestId id;
        private final boolean tools;
        private final boolean prompts;
        private final boolean resources;
        private final Set<String> uris;
        private final RequestHost host;
        private boolean ended;

        private Listen(RequestId id, boolean tools, boolean prompts, boolean resources, Set<String> uris,
                RequestHost host) {
            this.id = id;
            this.tools = tools;
            this.prompts = prompts;
            this.resources = resources;
            this.uris = uris;
            this.host = host;
        }

        private synchronized void send(JsonRpcNotification notification) {
            if (!ended) {
                host.send(notification, id);
            }
        }

        /** Ends the listen with its final result. Idempotent. */
        void end() {
            synchronized (this) {
                if (ended) {
                    return;
                }
                ended = true;
                open.remove(this);
                ObjectNode result = Json.object();
                result.put("resultType", "complete");
                result.set(McpMeta.KEY, subscriptionMeta(id));
                host.send(new JsonRpcResult(id, result), id);
            }
        }

        /** Forgets the listen without a word: the client cancelled it. */
        synchronized void drop() {
            ended = true;
            open.remove(this);
        }
    }

    /** {@code subscriptions/listen}: acknowledges the filter it honours and keeps the request open until it ends. */
    ObjectNode open(Exchange exchange) {
        JsonNode filter = exchange.params.path("notifications");
        ObjectNode honoured = Json.object();
        boolean tools = filter.path("toolsListChanged").asBoolean(false);
        boolean prompts = filter.path("promptsListChanged").asBoolean(false);
        boolean resources = filter.path("resourcesListChanged").asBoolean(false);
        Set<String> uris = Set.of();
        if (tools) {
            honoured.put("toolsListChanged", true);
        }
        if (prompts) {
            honoured.put("promptsListChanged", true);
        }
        if (resources) {
            honoured.put("resourcesListChanged", true);
        }
        JsonNode wanted = filter.get("resourceSubscriptions");
        if (wanted != null && wanted.isArray()) {
            ArrayNode accepted = honoured.putArray("resourceSubscriptions");
            Set<String> chosen = new HashSet<>();
            for (JsonNode uri : wanted) {
                if (uri.isString() && chosen.size() < MAX_URIS && chosen.add(uri.stringValue())) {
                    accepted.add(uri.stringValue());
                }
            }
            uris = Set.copyOf(chosen);
        }
        RequestId id = exchange.request.id();
        RequestHost host = exchange.host;
        host.ended(exchange);
        host.answered();
        ObjectNode ack = Json.object();
        ack.set(McpMeta.KEY, subscriptionMeta(id));
        ack.set("notifications", honoured);
        Listen listen = new Listen(id, tools, prompts, resources, uris, host);
        boolean live;
        // Under the listen's lock, which its notifications and its end take: the acknowledgement is its first message.
        synchronized (listen) {
            live = host.listening(listen);
            if (live) {
                open.add(listen);
            }
            host.send(new JsonRpcNotification("notifications/subscriptions/acknowledged", ack), id);
        }
        if (!live) {
            listen.end();
        }
        return null;
    }

    int size() {
        return open.size();
    }

    void listChanged(FeatureRegistry.Kind kind) {
        changes.changed(kind);
    }

    private void notifyListChanged(FeatureRegistry.Kind kind) {
        for (Listen l : open) {
            boolean wanted = switch (kind) {
                case TOOLS -> l.tools;
                case PROMPTS -> l.prompts;
                case RESOURCES -> l.resources;
            };
            if (wanted) {
                ObjectNode p = Json.object();
                p.set(McpMeta.KEY, subscriptionMeta(l.id));
                l.send(new JsonRpcNotification(kind.notification, p));
            }
        }
    }

    void resourceUpdated(String uri) {
        for (Listen l : open) {
            if (l.uris.contains(uri)) {
                ObjectNode p = Json.object();
                p.set(McpMeta.KEY, subscriptionMeta(l.id));
                p.put("uri", uri);
                l.send(new JsonRpcNotification("notifications/resources/updated", p));
            }
        }
    }

    /** Ends every listen (the server is closing). */
    void endAll() {
        for (Listen l : open) {
            l.end();
        }
    }

    private static ObjectNode subscriptionMeta(RequestId id) {
        ObjectNode meta = Json.object();
        switch (id) {
            case RequestId.NumberId n -> meta.put(McpMeta.SUBSCRIPTION_ID, n.value());
            case RequestId.StringId s -> meta.put(McpMeta.SUBSCRIPTION_ID, s.value());
        }
        return meta;
    }
}
