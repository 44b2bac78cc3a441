package dev.tern.transport.http;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;

import dev.tern.testing.TestCa;

import io.netty.channel.Channel;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamChannelBootstrap;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Client certificates: verified against the trusted authorities and their CRL, then readable on the request path. */
class MutualTlsTest {
    private static final HttpOptions.Tls.ClientAuth REQUIRED = HttpOptions.Tls.ClientAuth.REQUIRED;
    private static final HttpOptions.Tls.ClientAuth OPTIONAL = HttpOptions.Tls.ClientAuth.OPTIONAL;

    private static TestCa ca;
    private static TestCa unknown;
    private static TestCa.Issued server;
    private static TestCa.Issued good;
    private static TestCa.Issued expired;
    private static TestCa.Issued strange;
    private static TestCa.Issued revoked;
    private static Served required;
    private static Served optional;

    @BeforeAll
    static void start() throws InterruptedException {
        ca = TestCa.create("Tern Test CA");
        unknown = TestCa.create("Unknown CA");
        server = ca.server("localhost");
        good = ca.client("good client");
        Instant now = Instant.now();
        expired = ca.client("expired client", now.minus(Duration.ofDays(10)), now.minus(Duration.ofDays(1)));
        strange = unknown.client("client of an unknown CA");
        revoked = ca.client("revoked client");
        ca.revoke(revoked);
        var crl = ca.crl();
        required = new Served(b -> b.tls(t -> t.certificate(server.certificate(), server.key())
                .clientAuth(REQUIRED).trust(ca.certificate()).revocationList(crl)));
        optional = new Served(b -> b.tls(t -> t.certificate(server.certificate(), server.key())
                .clientAuth(OPTIONAL).trust(ca.certificate()).revocationList(crl)));
    }

    @AfterAll
    static void stop() {
        for (AutoCloseable c : new AutoCloseable[] {required, optional, ca, unknown}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }

    @Test
    void aGoodClientCertificateIsServedWhetherRequiredOrOptional() throws Exception {
        assertThat(outcome(required, good)).isEqualTo("200");
        assertThat(outcome(optional, good)).isEqualTo("200");
    }

    @Test
    void noClientCertificateIsRefusedWhenRequiredAndServedWhenOptional() throws Exception {
        assertThat(outcome(required, null)).isEqualTo("refused");
        assertThat(outcome(optional, null)).isEqualTo("200");
    }

    @Test
    void anExpiredClientCertificateIsRefusedInEitherMode() throws Exception {
        assertThat(outcome(required, expired)).isEqualTo("refused");
        assertThat(outcome(optional, expired)).isEqualTo("refused");
    }

    @Test
    void aClientCertificateOfAnUnknownAuthorityIsRefusedInEitherMode() throws Exception {
        assertThat(outcome(required, strange)).isEqualTo("refused");
        assertThat(outcome(optional, strange)).isEqualTo("refused");
    }

    @Test
    void aRevokedClientCertificateIsRefusedInEitherMode() throws Exception {
        assertThat(outcome(required, revoked)).isEqualTo("refused");
        assertThat(outcome(optional, revoked)).isEqualTo("refused");
        try (Served withoutCrl = new Served(b -> b.tls(t -> t.certificate(server.certificate(), server.key())
                .clientAuth(REQUIRED).trust(ca.certificate())))) {
            assertThat(outcome(withoutCrl, revoked)).as("the CRL is what refuses it").isEqualTo("200");
        }
    }

    @Test
    void clientAuthNeedsTrustedAuthorities() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> HttpServerTransport.builder(required.fixture.server)
                .tls(t -> t.selfSigned().clientAuth(REQUIRED)).build())
                .hasMessageContaining("tls.clientAuth required needs trust(authorities)");
    }

    @Test
    void theVerifiedCertificateIsReadableForHttp1AndHttp2Requests() throws Exception {
        try (SSLSocket h1 = connect(optional, good, "http/1.1")) {
            assertThat(health(h1)).isEqualTo(200);
            Channel connection = serverSide(optional, h1.getLocalPort());
            assertThat(commonName(TlsPeer.certificates(connection))).isEqualTo("CN=good client");
        }
        try (SSLSocket anonymous = connect(optional, null, "http/1.1")) {
            assertThat(health(anonymous)).isEqualTo(200);
            assertThat(TlsPeer.certificates(serverSide(optional, anonymous.getLocalPort()))).isEmpty();
        }
        try (Mcp h2 = new Mcp(optional.transport, HttpClient.Version.HTTP_2, ca.clientContext(good))) {
            h2.assertServes();
            Channel connection = optional.transport.openChannels().stream()
                    .filter(c -> c.pipeline().get(io.netty.handler.codec.http2.Http2FrameCodec.class) != null)
                    .findFirst().orElseThrow();
            Http2StreamChannel stream = new Http2StreamChannelBootstrap(connection)
                    .handler(new io.netty.channel.ChannelInboundHandlerAdapter()).open().sync().getNow();
            try {
                assertThat(commonName(TlsPeer.certificates(stream))).isEqualTo("CN=good client");
            } finally {
                stream.close().sync();
            }
        }
    }

    private static String commonName(List<X509Certificate> chain) {
        assertThat(chain).isNotEmpty();
        return chain.get(0).getSubjectX500Principal().getName();
    }

    private static Channel serverSide(Served served, int clientPort) {
        return served.transport.openChannels().stream()
                .filter(c -> ((InetSocketAddress) c.remoteAddress()).getPort() == clientPort)
                .findFirst().orElseThrow();
    }

    /** "200" when a request over a connection presenting {@code identity} is answered, "refused" when TLS fails. */
    private static String outcome(Served served, TestCa.Issued identity) throws IOException {
        try (SSLSocket socket = connect(served, identity, "http/1.1")) {
            return String.valueOf(health(socket));
        } catch (javax.net.ssl.SSLException | java.net.SocketException e) {
            return "refused";
        }
    }

    private static SSLSocket connect(Served served, TestCa.Issued identity, String alpn) throws IOException {
        SSLContext ctx = ca.clientContext(identity);
        SSLSocket socket = (SSLSocket) ctx.getSocketFactory().createSocket(InetAddress.getLoopbackAddress(),
                served.port());
        socket.setSoTimeout(10_000);
        var parameters = socket.getSSLParameters();
        parameters.setApplicationProtocols(new String[] {alpn});
        socket.setSSLParameters(parameters);
        socket.startHandshake();
        return socket;
    }

    /** Sends GET /health on {@code socket} and reads the whole response; returns its status. */
    static int health(SSLSocket socket) throws IOException {
        String request = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
        socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().flush();
        InputStream in = socket.getInputStream();
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int c = in.read();
            if (c < 0) {
                throw new java.net.SocketException("closed");
            }
            head.append((char) c);
        }
        java.util.regex.Matcher length = java.util.regex.Pattern.compile("(?i)content-length: *(\\d+)").matcher(head);
        if (length.find()) {
            in.readNBytes(Integer.parseInt(length.group(1)));
        }
        return Integer.parseInt(head.substring(9, 12));
    }
}
