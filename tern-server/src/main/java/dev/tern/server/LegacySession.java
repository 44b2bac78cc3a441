package dev.tern.server;

import dev.tern.protocol.ProtocolVersion;
import dev.tern.protocol.model.Implementation;
import dev.tern.protocol.model.LoggingLevel;

import tools.jackson.databind.node.ObjectNode;

/** What {@code initialize} settled for a legacy session: the revision, the client, and its log level. */
record LegacySession(ProtocolVersion version, ObjectNode capabilities, Implementation clientInfo, LoggingLevel logLevel) {

    LegacySession withLogLevel(LoggingLevel level) {
        return new LegacySession(version, capabilities, clientInfo, level);
    }
}
