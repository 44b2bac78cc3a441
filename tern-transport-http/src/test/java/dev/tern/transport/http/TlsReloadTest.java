package dev.tern.transport.http;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

import javax.net.ssl.SSLSocket;

import dev.tern.testing.TestCa;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The certificate and key are reloaded when their files change, under load, without a failed handshake. */
class TlsReloadTest {
    private static final int REQUESTS = 2_000;
    private static final int CLIENTS = 4;

    private TestCa ca;
    private Path chain;
    private Path key;
    private Served served;
    private javax.net.ssl.TrustManager[] trust;

    @BeforeEach
    void start() throws Exception {
        ca = TestCa.create("Tern Test CA");
        trust = ca.trustManagers();
        TestCa.Issued first = ca.server("first");
        chain = ca.dir().resolve("served-chain.pem");
        key = ca.dir().resolve("served-key.pem");
        Files.copy(first.certificate(), chain);
        Files.copy(first.key(), key);
        served = new Served(b -> b.tls(t -> t.certificate(chain, key).reloadInterval(Duration.ofMillis(100))));
    }

    @AfterEach
    void stop() {
        if (served != null) {
            served.close();
        }
        ca.close();
    }

    @Test
    void newConnectionsGetTheReplacedCertificateAndNoRequestFailsAcrossTheSwap() throws Exception {
        TestCa.Issued second = ca.server("second");
        assertThat(servedCommonName()).isEqualTo("CN=first");
        AtomicInteger started = new AtomicInteger();
        LongAdder answered = new LongAdder();
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        Map<String, LongAdder> seen = new ConcurrentHashMap<>();
        CountDownLatch oneThird = new CountDownLatch(REQUESTS / 3);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        List<Thread> clients = new java.util.ArrayList<>();
        for (int i = 0; i < CLIENTS; i++) {
            clients.add(Thread.ofPlatform().name("tls-load-" + i).start(() -> {
                while (started.incrementAndGet() <= REQUESTS && System.nanoTime() < deadline) {
                    try (SSLSocket socket = connect()) {
                        assertThat(MutualTlsTest.health(socket)).isEqualTo(200);
                        String cn = ((X509Certificate) socket.getSession().getPeerCertificates()[0])
                                .getSubjectX500Principal().getName();
                        seen.computeIfAbsent(cn, k -> new LongAdder()).increment();
                        answered.increment();
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                    oneThird.countDown();
                }
            }));
        }
        assertThat(oneThird.await(60, TimeUnit.SECONDS)).as("a third of the requests answered").isTrue();
        // The key and the certificate land one after the other, as a renewal tool writes them: the poll in between may
        // see a key that does not match its certificate, which it must log and skip.
        replace(second.key(), key);
        replace(second.certificate(), chain);
        for (Thread t : clients) {
            t.join(TimeUnit.SECONDS.toMillis(130));
        }
        assertThat(failures).as("requests that failed across the swap").isEmpty();
        assertThat(answered.sum()).as("requests answered within the time bound").isGreaterThan(REQUESTS / 2);
        assertThat(seen).containsKeys("CN=first", "CN=second");
        assertThat(seen.get("CN=second").sum()).as("requests after the swap").isGreaterThan(REQUESTS / 10);
        assertThat(servedCommonName()).isEqualTo("CN=second");
    }

    @Test
    void aFileThatDoesNotLoadKeepsTheCertificateInUse() throws Exception {
        served.close();
        served = new Served(b -> b.tls(t -> t.certificate(chain, key).reloadInterval(Duration.ZERO)));
        Files.writeString(chain, "-----BEGIN CERTIFICATE-----\nbroken\n-----END CERTIFICATE-----\n");
        assertThat(served.transport.reloadTls()).as("a broken certificate is not swapped in").isFalse();
        assertThat(servedCommonName()).isEqualTo("CN=first");
        TestCa.Issued stranger = ca.server("stranger");
        Files.copy(stranger.certificate(), chain, StandardCopyOption.REPLACE_EXISTING);
        assertThat(served.transport.reloadTls()).as("a certificate not matching the key is not swapped in").isFalse();
        assertThat(servedCommonName()).isEqualTo("CN=first");
        Files.copy(stranger.key(), key, StandardCopyOption.REPLACE_EXISTING);
        assertThat(served.transport.reloadTls()).as("the matching pair is swapped in").isTrue();
        assertThat(servedCommonName()).isEqualTo("CN=stranger");
        assertThat(served.transport.reloadTls()).as("nothing changed since").isFalse();
    }

    /** Replaces {@code target} with a copy of {@code source} in one rename, as certificate tools do. */
    private static void replace(Path source, Path target) throws IOException {
        Path temporary = target.resolveSibling(target.getFileName() + ".new");
        Files.copy(source, temporary, StandardCopyOption.REPLACE_EXISTING);
        Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    private String servedCommonName() throws IOException {
        try (SSLSocket socket = connect()) {
            assertThat(MutualTlsTest.health(socket)).isEqualTo(200);
            return ((X509Certificate) socket.getSession().getPeerCertificates()[0]).getSubjectX500Principal().getName();
        }
    }

    /** A new connection with a full handshake (a new client context, so no session to resume). */
    private SSLSocket connect() throws IOException {
        javax.net.ssl.SSLContext fresh;
        try {
            fresh = javax.net.ssl.SSLContext.getInstance("TLS");
            fresh.init(null, trust, null);
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
        SSLSocket socket = (SSLSocket) fresh.getSocketFactory().createSocket(InetAddress.getLoopbackAddress(),
                served.port());
        socket.setSoTimeout(10_000);
        socket.startHandshake();
        return socket;
    }
}
