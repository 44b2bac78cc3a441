package dev.tern.server;

import java.time.Duration;

import dev.tern.protocol.model.LoggingLevel;

/** The knobs of a server, fixed when it is built. */
record ServerConfig(
        int pageSize,
        Duration handlerTimeout,
        Duration clientRequestTimeout,
        Duration listChangedDelay,
        Duration requestStateLifetime,
        long listTtlMs,
        long readTtlMs,
        String cacheScope,
        LoggingLevel defaultLogLevel,
        int progressPerSecond,
        int logsPerSecond) {
}
