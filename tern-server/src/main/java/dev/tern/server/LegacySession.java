package dev.tern.server;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.tern.protocol.Json;
import dev.tern.protocol.JsonRpcNotification;
import dev.tern.protocol.McpException;
import dev.tern.protocol.ProtocolVersion;
import dev.tern.protocol.model.Implementation;
import dev.tern.protocol.model.LoggingLevel;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A legacy (2025-11-25 and older) session, opened by {@code initialize} on a connection: the revision and client it
 * settled, the log level, the resources the client subscribed to, and the list changes it is told of.
 */
final class LegacySession {
    /** The most resources one session may subscribe to. */
    private static final int MAX_SUBSCRIPTIONS = 10_000;

    private final RequestHost connection;
    final ProtocolVersion version;
    final ObjectNode capabilities;
    final Implementation clientInfo;
    private volatile LoggingLevel logLevel;
    private final Set<String> subscriptions = ConcurrentHashMap.newKeySet();
    private final ListChanges changes;

    LegacySession(McpServer server, RequestHost connection, ProtocolVersion version, ObjectNode capabilities,
            Implementation clientInfo) {
        this(server, connection, version, capabilities, clientInfo, server.config().defaultLogLevel());
    }

    private LegacySession(McpServer server, RequestHost connection, ProtocolVersion version, ObjectNode capabilities,
            Implementation clientInfo, LoggingLevel logLevel) {
        this.connection = connection;
        this.version = version;
        this.capabilities = capabilities;
        this.clientInfo = clientInfo;
        this.logLevel = logLevel;
        this.changes = new ListChanges(server,
                kind -> connection.send(new JsonRpcNotification(kind.notification, null), null));
    }

    /** A session another node opened, as it stands in the {@link SessionStore}. */
    static LegacySession restored(McpServer server, RequestHost connection, LegacySessionState state) {
        LegacySession session = new LegacySession(server, connection, state.version(), state.capabilities(),
                state.clientInfo(), state.logLevel());
        session.subscriptions.addAll(state.subscriptions());
        return session;
    }

    /** Takes the log level and subscriptions another node set. */
    void update(LegacySessionState state) {
        logLevel = state.logLevel();
        subscriptions.retainAll(state.subscriptions());
        subscriptions.addAll(state.subscriptions());
    }

    LegacySessionState state() {
        return new LegacySessionState(version, capabilities, clientInfo, logLevel, subscriptions);
    }

    LoggingLevel logLevel() {
        return logLevel;
    }

    /** {@code logging/setLevel}. */
    ObjectNode setLogLevel(Exchange exchange) {
        JsonNode level = exchange.params.get("level");
        logLevel = LoggingLevel.parse(level != null && level.isString() ? level.stringValue() : null)
                .orElseThrow(() -> McpException.invalidParams("Invalid params: unknown log level " + level));
        connection.outbound().sessionStateChanged();
        return Json.object();
    }

    /** {@code resources/subscribe} and {@code resources/unsubscribe}. */
    ObjectNode subscribe(Exchange exchange, boolean add) {
        String uri = Methods.requireString(exchange.params, "uri");
        if (add) {
            if (subscriptions.size() >= MAX_SUBSCRIPTIONS && !subscriptions.contains(uri)) {
                throw McpException.invalidRequest("Invalid request: too many resource subscriptions");
            }
            subscriptions.add(uri);
        } else {
            subscriptions.remove(uri);
        }
        connection.outbound().sessionStateChanged();
        return Json.object();
    }

    void listChanged(FeatureRegistry.Kind kind) {
        changes.changed(kind);
    }

    void resourceUpdated(String uri) {
        if (subscriptions.contains(uri)) {
            ObjectNode p = Json.object();
            p.put("uri", uri);
            connection.send(new JsonRpcNotification("notifications/resources/updated", p), null);
        }
    }
}
