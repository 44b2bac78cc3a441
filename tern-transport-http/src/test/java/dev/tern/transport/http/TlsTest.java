package dev.tern.transport.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.http.HttpClient;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedTrustManager;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** SECURITY.md row 48b: old TLS versions, client renegotiation, plaintext/TLS mix-ups, stalled handshakes. */
class TlsTest {
    private static Served served;

    @BeforeAll
    static void start() throws InterruptedException {
        served = new Served(b -> b.tls(t -> t.selfSigned().handshakeTimeout(Duration.ofMillis(500))));
    }

    @AfterEach
    void stillServes() {
        try (Mcp h2 = new Mcp(served.transport, HttpClient.Version.HTTP_2, trustAll());
                Mcp h1 = new Mcp(served.transport, HttpClient.Version.HTTP_1_1, trustAll())) {
            h2.assertServes();
            h1.assertServes();
        }
    }

    @Test
    void boringSslServesOnThePlatformItShipsFor() {
        org.junit.jupiter.api.Assumptions.assumeTrue(System.getProperty("os.name").startsWith("Linux")
                && System.getProperty("os.arch").matches("amd64|x86_64"), "BoringSSL ships for linux-x86_64");
        assertThat(TlsSupport.provider()).as("the native library loads: %s", io.netty.handler.ssl.OpenSsl
                .unavailabilityCause()).isEqualTo(io.netty.handler.ssl.SslProvider.OPENSSL);
    }

    @AfterAll
    static void stop() {
        served.close();
    }

    /** Trusts the self-signed development certificate (and anything else): for tests against 127.0.0.1 only. */
    static SSLContext trustAll() {
        try {
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(null, new TrustManager[] {new X509ExtendedTrustManager() {
                @Override
                public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) {
                }

                @Override
                public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) {
                }

                @Override
                public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {
                }

                @Override
                public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {
                }

                @Override
                public void checkClientTrusted(X509Certificate[] chain, String authType) {
                }

                @Override
                public void checkServerTrusted(X509Certificate[] chain, String authType) {
                }

                @Override
                public X509Certificate[] getAcceptedIssuers() {
                    return new X509Certificate[0];
                }
            }}, new SecureRandom());
            return ctx;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** A ClientHello record offering only {@code version} (no supported_versions extension), as old clients send. */
    static byte[] clientHello(int version) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.write(version >>> 8);
        body.write(version);
        body.writeBytes(new byte[32]);
        body.write(0);
        int[] suites = {0x002f, 0x0035, 0xc009, 0xc013, 0x000a};
        body.write(0);
        body.write(suites.length * 2);
        for (int s : suites) {
            body.write(s >>> 8);
            body.write(s);
        }
        body.write(1);
        body.write(0);
        byte[] hello = body.toByteArray();
        ByteBuffer record = ByteBuffer.allocate(5 + 4 + hello.length);
        record.put((byte) 0x16).put((byte) 0x03).put((byte) 0x01).putShort((short) (4 + hello.length));
        record.put((byte) 1).put((byte) 0).putShort((short) hello.length).put(hello);
        return record.array();
    }

    /** The first bytes the server answers with, up to {@code max}, until it closes or goes quiet. */
    private static byte[] answer(Socket socket, int max) throws IOException {
        socket.setSoTimeout(3_000);
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        InputStream in = socket.getInputStream();
        byte[] buf = new byte[1024];
        try {
            while (got.size() < max) {
                int n = in.read(buf);
                if (n < 0) {
                    break;
                }
                got.write(buf, 0, n);
            }
        } catch (SocketTimeoutException | SocketException e) {
            // quiet or reset: what arrived so far is the answer
        }
        return got.toByteArray();
    }

    @ParameterizedTest
    @ValueSource(ints = {0x0300, 0x0301, 0x0302})
    void row48bSslv3Tls10AndTls11AreRefused(int version) throws Exception {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), served.port())) {
            socket.getOutputStream().write(clientHello(version));
            byte[] reply = answer(socket, 4096);
            // Either a fatal alert (record type 21) or a closed connection, never a ServerHello (22).
            if (reply.length > 0) {
                assertThat(reply[0]).as("record type of the reply").isEqualTo((byte) 21);
                assertThat(reply[5]).as("alert level: fatal").isEqualTo((byte) 2);
            }
        }
    }

    @Test
    void row48bClientInitiatedRenegotiationOnTls12IsRefused() throws Exception {
        SSLContext ctx = trustAll();
        try (SSLSocket socket = (SSLSocket) ctx.getSocketFactory().createSocket(InetAddress.getLoopbackAddress(), served.port())) {
            socket.setSoTimeout(10_000);
            socket.setEnabledProtocols(new String[] {"TLSv1.2"});
            socket.startHandshake();
            assertThat(socket.getSession().getProtocol()).isEqualTo("TLSv1.2");
            assertThat(health(socket)).isEqualTo(200);
            boolean renegotiated;
            try {
                socket.startHandshake();
                renegotiated = health(socket) == 200;
            } catch (IOException refused) {
                renegotiated = false;
            }
            assertThat(renegotiated).as("a second handshake on the connection, then a request answered").isFalse();
            assertThat(socket.isClosed() || socket.getInputStream().read() == -1).as("the connection is closed").isTrue();
        }
    }

    /** Sends GET /health on {@code socket} and reads the whole response; returns its status. */
    private int health(SSLSocket socket) throws IOException {
        String request = "GET /health HTTP/1.1\r\nHost: 127.0.0.1:" + served.port() + "\r\n\r\n";
        socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().flush();
        InputStream in = socket.getInputStream();
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int c = in.read();
            if (c < 0) {
                throw new IOException("closed");
            }
            head.append((char) c);
        }
        java.util.regex.Matcher length = java.util.regex.Pattern.compile("(?i)content-length: *(\\d+)").matcher(head);
        if (length.find()) {
            in.readNBytes(Integer.parseInt(length.group(1)));
        }
        return Integer.parseInt(head.substring(9, 12));
    }

    @Test
    void row48bPlaintextToTheTlsPortIsClosed() throws Exception {
        try (RawHttp raw = new RawHttp(served.port())) {
            raw.send("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n{}");
            byte[] reply = answer(raw.socket, 4096);
            assertThat(new String(reply, StandardCharsets.ISO_8859_1)).doesNotContain("HTTP/1.1");
            assertThat(raw.closedByServer()).isTrue();
        }
    }

    @Test
    void row48bClientHelloToTheCleartextPortIsRefused() throws Exception {
        try (Served cleartext = new Served(); Socket socket = new Socket(InetAddress.getLoopbackAddress(), cleartext.port())) {
            socket.getOutputStream().write(clientHello(0x0303));
            String reply = new String(answer(socket, 4096), StandardCharsets.ISO_8859_1);
            assertThat(reply).startsWith("HTTP/1.1 400").contains("-32600").contains("connection: close");
            try (Mcp mcp = new Mcp(cleartext.transport, HttpClient.Version.HTTP_1_1)) {
                mcp.assertServes();
            }
        }
    }

    @Test
    void row44StalledTlsHandshakesAreClosed() throws Exception {
        try (RawHttp silent = new RawHttp(served.port()); RawHttp partial = new RawHttp(served.port())) {
            byte[] hello = clientHello(0x0303);
            partial.send(java.util.Arrays.copyOf(hello, 10));
            assertThat(silent.closedByServer()).isTrue();
            assertThat(partial.closedByServer()).isTrue();
        }
        DirectoryFixture.await("handshake slots reclaimed", () -> served.transport.openConnections() <= 2);
    }
}
