package dev.tern.server.observe;

/**
 * How a request reached the server, with the {@code network.*} attribute values the MCP semantic conventions give
 * each transport.
 */
public enum Transport {
    STDIO("pipe", null, null),
    HTTP_1_1("tcp", "http", "1.1"),
    HTTP_2("tcp", "http", "2"),
    /** A WebSocket connection (RFC 6455), opened over HTTP/1.1 or, by RFC 8441, over an HTTP/2 stream. */
    WEBSOCKET("tcp", "websocket", null);

    private final String networkTransport;
    private final String protocolName;
    private final String protocolVersion;

    Transport(String networkTransport, String protocolName, String protocolVersion) {
        this.networkTransport = networkTransport;
        this.protocolName = protocolName;
        this.protocolVersion = protocolVersion;
    }

    /** {@code network.transport}: {@code pipe} or {@code tcp}. */
    public String networkTransport() {
        return networkTransport;
    }

    /** {@code network.protocol.name}: {@code http} or {@code websocket}; null over stdio. */
    public String protocolName() {
        return protocolName;
    }

    /** {@code network.protocol.version}, or null over stdio and WebSocket. */
    public String protocolVersion() {
        return protocolVersion;
    }
}
