package dev.tern.server;

import java.util.Objects;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import dev.tern.protocol.ProtocolVersion;
import dev.tern.protocol.model.Implementation;
import dev.tern.protocol.model.LoggingLevel;

import tools.jackson.databind.node.ObjectNode;

/**
 * What a legacy (2025-11-25 and older) session settled, as a value: the revision and client {@code initialize}
 * negotiated, the log level and the resources subscribed to. A {@link SessionStore} keeps it so that any node can
 * serve the session ({@link ServerChannel#restore}).
 */
public record LegacySessionState(ProtocolVersion version, ObjectNode capabilities, @Nullable Implementation clientInfo,
        LoggingLevel logLevel, Set<String> subscriptions) {

    public LegacySessionState {
        Objects.requireNonNull(version, "version");
        Objects.requireNonNull(capabilities, "capabilities");
        Objects.requireNonNull(logLevel, "logLevel");
        subscriptions = Set.copyOf(subscriptions);
    }
}
