package dev.tern.jmh;

import java.nio.charset.StandardCharsets;

/** The requests the benchmarks send: the write-ups' {@code get_user} call in both eras. */
final class Messages {
    static final byte[] MODERN_GET_USER = ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":"
            + "\"get_user\",\"arguments\":{\"id\":\"7\"},\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"
            + "\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{},\"io.modelcontextprotocol/clientInfo\":"
            + "{\"name\":\"jmh\",\"version\":\"1\"}}}}").getBytes(StandardCharsets.UTF_8);

    /** Up to 100 users matching "e": a ~30 KB structured result. */
    static final byte[] MODERN_SEARCH_USERS = ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{"
            + "\"name\":\"search_users\",\"arguments\":{\"query\":\"e\",\"limit\":100},\"_meta\":{"
            + "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{},"
            + "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"jmh\",\"version\":\"1\"}}}}").getBytes(StandardCharsets.UTF_8);

    static final byte[] LEGACY_GET_USER = ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":"
            + "\"get_user\",\"arguments\":{\"id\":\"7\"}}}").getBytes(StandardCharsets.UTF_8);

    static final byte[] INITIALIZE = ("{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{"
            + "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"jmh\",\"version\":\"1\"}}}")
            .getBytes(StandardCharsets.UTF_8);

    static final byte[] INITIALIZED = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"
            .getBytes(StandardCharsets.UTF_8);

    private Messages() {
    }
}
