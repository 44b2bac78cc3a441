package dev.tern.server.observe;

/**
 * How a request reached the server, with the {@code network.*} attribute values the MCP semantic conventions give
 * each transport.
 */
public enum Transport {
    STDIO("pipe", null, null),
    HTTP_1_1("tcp", "http", "1.1"),
    HTTP_2("tcp", "http", "2");

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

    /** {@code network.protocol.name}, or null over stdio. */
    public String protocolName() {
        return protocolName;
    }

    /** {@code network.protocol.version}, or null over stdio. */
    public String protocolVersion() {
        return protocolVersion;
    }
}
