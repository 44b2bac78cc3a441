package dev.tern.observability;

/**
 * How a request reached the server, with the {@code network.*} attribute values the MCP semantic conventions give
 * each transport.
 */
public enum Transport {
    STDIO("pipe", null, null),
    HTTP_1_1("tcp", "http", "1.1"),
    HTTP_2("tcp", "http", "2");

    final String networkTransport;
    final String protocolName;
    final String protocolVersion;

    Transport(String networkTransport, String protocolName, String protocolVersion) {
        this.networkTransport = networkTransport;
        this.protocolName = protocolName;
        this.protocolVersion = protocolVersion;
    }
}
