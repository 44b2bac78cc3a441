package dev.tern.transport.http;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.SSLSocket;

import dev.tern.testing.TestCa;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** TLS versions offered, HSTS, and TLS 1.3 early data refused. */
class TlsOptionsTest {
    private static final String REQUEST = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";

    private static TestCa ca;
    private static TestCa.Issued server;
    private static Served tls13;
    private static Served hsts;

    @BeforeAll
    static void start() throws InterruptedException {
        ca = TestCa.create("Tern Test CA");
        server = ca.server("localhost");
        tls13 = new Served(b -> b.tls(t -> t.certificate(server.certificate(), server.key()).protocols("TLSv1.3")));
        hsts = new Served(b -> b.tls(t -> t.certificate(server.certificate(), server.key())
                .hsts(Duration.ofDays(365), true)));
    }

    @AfterAll
    static void stop() {
        tls13.close();
        hsts.close();
        ca.close();
    }

    @Test
    void aServerOfTls13AloneRefusesATls12Client() throws Exception {
        try (SSLSocket socket = connect(tls13, "TLSv1.3")) {
            assertThat(socket.getSession().getProtocol()).isEqualTo("TLSv1.3");
            assertThat(MutualTlsTest.health(socket)).isEqualTo(200);
        }
        assertThatThrownBy(() -> connect(tls13, "TLSv1.2").close()).isInstanceOf(javax.net.ssl.SSLException.class);
    }

    @Test
    void hstsIsSentOnEveryTlsResponseWhenAskedFor() throws Exception {
        try (Mcp client = new Mcp(hsts.transport, java.net.http.HttpClient.Version.HTTP_2, ca.clientContext(null))) {
            Mcp.Reply health = client.get(client.uri.resolve("/health"), Map.of());
            assertThat(health.headers().firstValue("strict-transport-security"))
                    .hasValue("max-age=31536000; includeSubDomains");
            Mcp.Reply missing = client.get(client.uri.resolve("/nothing-here"), Map.of());
            assertThat(missing.status()).isEqualTo(404);
            assertThat(missing.headers().firstValue("strict-transport-security")).isPresent();
        }
        try (Mcp client = new Mcp(tls13.transport, java.net.http.HttpClient.Version.HTTP_1_1, ca.clientContext(null))) {
            Mcp.Reply health = client.get(client.uri.resolve("/health"), Map.of());
            assertThat(health.status()).isEqualTo(200);
            assertThat(health.headers().firstValue("strict-transport-security")).as("not asked for").isEmpty();
        }
    }

    /**
     * A client resuming a TLS 1.3 session may send a request before the handshake ends (0-RTT), which an attacker can
     * replay; the server's session tickets allow no early data, so a client sends none and a resumption is a
     * 1-RTT handshake.
     */
    @Test
    void tls13EarlyDataIsRefused() throws Exception {
        Path session = ca.dir().resolve("session.pem");
        Path early = ca.dir().resolve("early.txt");
        Files.writeString(early, REQUEST);
        String first = sClient(ca, hsts.port(), "-sess_out", session.toString());
        assertThat(first).contains("HTTP/1.1 200").contains("TLSv1.3");
        assertThat(ca.openssl("sess_id", "-in", session.toString(), "-noout", "-text"))
                .as("the session ticket's early data allowance").containsPattern("Max Early Data: 0\\b");
        String resumed = sClient(ca, hsts.port(), "-sess_in", session.toString(), "-early_data", early.toString());
        assertThat(resumed).as("the session is resumed").contains("Reused, TLSv1.3")
                .doesNotContain("Early data was accepted");
    }

    /** Runs {@code openssl s_client} to the server, sends {@link #REQUEST}, and returns what it printed. */
    static String sClient(TestCa ca, int port, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("openssl", "s_client", "-connect", "127.0.0.1:" + port,
                "-servername", "localhost", "-CAfile", ca.certificate().toString(), "-verify_return_error",
                "-tls1_3", "-ign_eof"));
        command.addAll(List.of(args));
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new IllegalStateException(TestCa.INSTALL, e);
        }
        try {
            p.getOutputStream().write(REQUEST.getBytes(StandardCharsets.US_ASCII));
            p.getOutputStream().close();
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("openssl s_client ended").isTrue();
            return output;
        } finally {
            p.destroyForcibly();
        }
    }

    private static SSLSocket connect(Served served, String protocol) throws IOException {
        SSLSocket socket = (SSLSocket) ca.clientContext(null).getSocketFactory()
                .createSocket(InetAddress.getLoopbackAddress(), served.port());
        socket.setSoTimeout(10_000);
        socket.setEnabledProtocols(new String[] {protocol});
        try {
            socket.startHandshake();
        } catch (IOException e) {
            socket.close();
            throw e;
        }
        return socket;
    }
}
