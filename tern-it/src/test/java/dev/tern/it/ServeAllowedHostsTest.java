package dev.tern.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/**
 * {@code tern serve --allow-host/--allow-origin}: a server reached by a name other than loopback accepts that name
 * and the origins given, and still answers 403 to any other Host or Origin (DNS-rebinding protection).
 */
class ServeAllowedHostsTest {
    private static final String BODY = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"_meta\":{"
            + "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
            + "\"io.modelcontextprotocol/clientCapabilities\":{}}}}";

    private static int status(URI url, String host, String origin) throws IOException {
        try (Socket socket = new Socket(url.getHost(), url.getPort())) {
            socket.setSoTimeout(10_000);
            String request = "POST " + url.getPath() + " HTTP/1.1\r\nHost: " + host + "\r\n"
                    + (origin == null ? "" : "Origin: " + origin + "\r\n")
                    + "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
                    + "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/list\r\n"
                    + "Connection: close\r\nContent-Length: " + BODY.length() + "\r\n\r\n" + BODY;
            OutputStream out = socket.getOutputStream();
            out.write(request.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            String statusLine = new String(in.readNBytes(12), StandardCharsets.US_ASCII);
            return Integer.parseInt(statusLine.substring(9, 12));
        }
    }

    @Test
    void namedHostsAndOriginsAreAcceptedAndOthersRefused() throws Exception {
        try (TernProcess tern = TernProcess.http("user-directory", "--allow-host", "mcp.example,tools.example",
                "--allow-origin", "https://app.example")) {
            URI url = URI.create(tern.url());
            String port = ":" + url.getPort();
            assertThat(status(url, "127.0.0.1" + port, null)).isEqualTo(200);
            assertThat(status(url, "mcp.example" + port, null)).as("an allowed host").isEqualTo(200);
            assertThat(status(url, "tools.example", null)).as("an allowed host, no port").isEqualTo(200);
            assertThat(status(url, "evil.example" + port, null)).isEqualTo(403);
            assertThat(status(url, "mcp.example" + port, "https://app.example")).as("an allowed origin").isEqualTo(200);
            assertThat(status(url, "mcp.example" + port, "https://mcp.example")).as("an origin on an allowed host")
                    .isEqualTo(200);
            assertThat(status(url, "mcp.example" + port, "https://evil.example")).isEqualTo(403);
        }
    }
}
