package dev.tern.protocol.model;

import java.util.Optional;

import com.fasterxml.jackson.annotation.JsonValue;

/** Syslog severities (RFC 5424), least severe first. */
public enum LoggingLevel {
    DEBUG, INFO, NOTICE, WARNING, ERROR, CRITICAL, ALERT, EMERGENCY;

    @JsonValue
    public String wire() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    public boolean atLeast(LoggingLevel other) {
        return compareTo(other) >= 0;
    }

    public static Optional<LoggingLevel> parse(String wire) {
        for (LoggingLevel level : values()) {
            if (level.wire().equals(wire)) {
                return Optional.of(level);
            }
        }
        return Optional.empty();
    }
}
