package dev.tern.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.tern.protocol.Json;
import dev.tern.testing.NettyLeakCheck;

import tools.jackson.databind.JsonNode;

/**
 * {@code tern serve} over Streamable HTTP stopped by SIGTERM with a 2026-07-28 listen open: the listen is answered with
 * its result at once (the schema's {@code SubscriptionsListenResult}, sent when the server tears a subscription down),
 * and the process exits long before its shutdown timeout, with nothing leaked.
 */
class ServeShutdownTest {
    private static final String LISTEN = "{\"jsonrpc\":\"2.0\",\"id\":\"watch\",\"method\":\"subscriptions/listen\","
            + "\"params\":{\"notifications\":{\"toolsListChanged\":true},\"_meta\":{"
            + "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{},"
            + "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}}";

    @Test
    void sigtermAnswersAnOpenListenAndDoesNotWaitForIt() throws Exception {
        try (TernProcess tern = TernProcess.http("user-directory", "--shutdown-timeout", "PT60S")) {
            URI url = URI.create(tern.url());
            try (Socket socket = new Socket(url.getHost(), url.getPort())) {
                socket.setSoTimeout(20_000);
                byte[] body = LISTEN.getBytes(StandardCharsets.UTF_8);
                OutputStream out = socket.getOutputStream();
                out.write(("POST " + url.getPath() + " HTTP/1.1\r\nHost: " + url.getHost() + ":" + url.getPort()
                        + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
                        + "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: subscriptions/listen\r\nContent-Length: "
                        + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                out.write(body);
                out.flush();
                BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
                        StandardCharsets.UTF_8));
                assertThat(in.readLine()).startsWith("HTTP/1.1 200");
                readUntil(in, "notifications/subscriptions/acknowledged");

                long sent = System.nanoTime();
                tern.process().toHandle().destroy();

                JsonNode end = Json.mapper().readTree(readUntil(in, "\"resultType\"").substring("data: ".length()));
                assertThat(end.path("id").asString()).isEqualTo("watch");
                assertThat(end.path("result").path("resultType").asString()).isEqualTo("complete");
                assertThat(end.path("result").path("_meta").path("io.modelcontextprotocol/subscriptionId").asString())
                        .isEqualTo("watch");
                assertThat(tern.waitFor(30, TimeUnit.SECONDS)).as("exit status").isNotEqualTo(-1);
                assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - sent))
                        .as("seconds from SIGTERM to exit, with a 60 s shutdown timeout").isLessThan(30);
            }
            for (int i = 0; i < 100 && NettyLeakCheck.leaksReportedAtExit(tern.stderr()) < 0; i++) {
                Thread.sleep(50);
            }
            assertThat(NettyLeakCheck.leaksReportedAtExit(tern.stderr())).as("leaks reported at exit; stderr:%n%s",
                    tern.stderr()).isZero();
        }
    }

    /** The first line holding {@code marker}. */
    private static String readUntil(BufferedReader in, String marker) throws Exception {
        StringBuilder seen = new StringBuilder();
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            if (line.contains(marker)) {
                return line;
            }
            seen.append(line).append('\n');
        }
        throw new AssertionError("closed before " + marker + " after:\n" + seen);
    }
}
