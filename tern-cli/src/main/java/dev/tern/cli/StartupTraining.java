package dev.tern.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.tern.client.Era;
import dev.tern.client.McpClient;

/**
 * The workload of the launcher's training run ({@code tern serve --startup-training}): what a client does first with a
 * freshly started server, so that the start-up cache the JVM writes at exit holds the classes of that path.
 */
final class StartupTraining {
    private static final int CALLS_PER_ERA = 20;
    private static final long TIMEOUT_SECONDS = 20;

    private StartupTraining() {
    }

    /** Calls the served user-directory example at {@code url} in both eras, then its plain REST route. */
    static void run(String url) throws Exception {
        for (Era era : List.of(Era.MODERN, Era.LEGACY)) {
            try (McpClient client = McpClient.http(URI.create(url)).era(era).build()) {
                client.listTools().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                for (int i = 1; i <= CALLS_PER_ERA; i++) {
                    client.callTool("get_user", Map.of("id", Integer.toString(i))).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                }
            }
        }
        URI endpoint = URI.create(url);
        get(endpoint.getHost(), endpoint.getPort(), "/users/42");
    }

    private static void get(String host, int port, String path) throws IOException {
        try (Socket socket = new Socket(host, port)) {
            socket.setSoTimeout((int) TimeUnit.SECONDS.toMillis(TIMEOUT_SECONDS));
            OutputStream out = socket.getOutputStream();
            out.write(("GET " + path + " HTTP/1.1\r\nHost: " + host + ":" + port + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            in.transferTo(OutputStream.nullOutputStream());
        }
    }
}
