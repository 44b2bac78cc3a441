package dev.tern.transport.http;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import com.sun.net.httpserver.HttpServer;

import dev.tern.testing.TestCa;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The server staples its certificate's OCSP response, fetched from the responder the certificate names. */
class OcspStaplingTest {
    private TestCa ca;
    private HttpServer responder;
    private final java.util.concurrent.atomic.AtomicInteger requests = new java.util.concurrent.atomic.AtomicInteger();
    private Path chain;
    private TestCa.Issued server;

    /**
     * Starts the OCSP responder: {@code openssl ocsp} answers each request from the CA's index, behind a loopback HTTP
     * server (its own {@code -port} would listen on every interface).
     */
    @BeforeEach
    void startResponder() throws Exception {
        responder = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        ca = TestCa.create("Tern OCSP Test CA", "http://127.0.0.1:" + responder.getAddress().getPort() + "/ocsp");
        server = ca.server("localhost");
        chain = ca.dir().resolve("chain.pem");
        Files.writeString(chain, Files.readString(server.certificate()) + Files.readString(ca.certificate()));
        responder.createContext("/ocsp", exchange -> {
            try (exchange) {
                Path request = Files.createTempFile(ca.dir(), "request", ".der");
                Path response = request.resolveSibling(request.getFileName() + ".response");
                Files.write(request, exchange.getRequestBody().readAllBytes());
                ca.openssl("ocsp", "-index", ca.index().toString(), "-rsigner", ca.certificate().toString(),
                        "-rkey", ca.key().toString(), "-CA", ca.certificate().toString(), "-ndays", "1",
                        "-reqin", request.toString(), "-respout", response.toString());
                byte[] body = Files.readAllBytes(response);
                requests.incrementAndGet();
                exchange.getResponseHeaders().set("Content-Type", "application/ocsp-response");
                exchange.sendResponseHeaders(200, body.length);
                exchange.getResponseBody().write(body);
            }
        });
        responder.start();
    }

    @AfterEach
    void stopResponder() {
        responder.stop(0);
        ca.close();
    }

    @Test
    void aClientAskingForTheCertificateStatusGetsTheResponderSGoodAnswerStapled() throws Exception {
        try (Served served = new Served(b -> b.tls(t -> t.certificate(chain, server.key()).ocspStapling(true)))) {
            String output = "";
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (System.nanoTime() < deadline && !output.contains("OCSP Response Status: successful")) {
                output = TlsOptionsTest.sClient(ca, served.port(), "-status");
                Thread.sleep(100);
            }
            assertThat(output).contains("OCSP Response Status: successful").contains("Cert Status: good")
                    .contains("HTTP/1.1 200");
            assertThat(requests.get()).as("responses fetched: one, until half-way to its nextUpdate").isEqualTo(1);
        }
    }

    @Test
    void withoutStaplingNoResponseIsSent() throws Exception {
        try (Served served = new Served(b -> b.tls(t -> t.certificate(chain, server.key())))) {
            String output = TlsOptionsTest.sClient(ca, served.port(), "-status");
            assertThat(output).contains("OCSP response: no response sent").contains("HTTP/1.1 200");
        }
    }
}
