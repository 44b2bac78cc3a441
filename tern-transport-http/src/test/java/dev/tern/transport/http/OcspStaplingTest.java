package dev.tern.transport.http;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import dev.tern.testing.TestCa;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The server staples its certificate's OCSP response, fetched from the responder the certificate names. */
class OcspStaplingTest {
    private TestCa ca;
    private Path chain;
    private TestCa.Issued server;

    @BeforeEach
    void startResponder() {
        ca = TestCa.createWithOcspResponder("Tern OCSP Test CA");
        server = ca.server("localhost");
        chain = ca.chain(server);
    }

    @AfterEach
    void stopResponder() {
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
            assertThat(ca.ocspRequests()).as("responses fetched: one, until half-way to its nextUpdate").isEqualTo(1);
        }
    }

    @Test
    void withoutStaplingNoResponseIsSent() throws Exception {
        try (Served served = new Served(b -> b.tls(t -> t.certificate(chain, server.key())))) {
            String output = TlsOptionsTest.sClient(ca, served.port(), "-status");
            assertThat(output).contains("OCSP response: no response sent").contains("HTTP/1.1 200");
            assertThat(ca.ocspRequests()).isZero();
        }
    }
}
