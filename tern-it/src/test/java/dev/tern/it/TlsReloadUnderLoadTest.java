package dev.tern.it;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;

import dev.tern.bench.Reports;
import dev.tern.bench.RunResult;
import dev.tern.bench.SeriesPoint;
import dev.tern.cli.Main;
import dev.tern.testing.TestCa;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code tern serve --tls} has its certificate and key replaced four times while {@code tern bench} loads it over
 * connections that last a few requests each, so that handshakes happen all through the run: as a mounted secret is
 * swapped (both files at once), one file renamed into place after the other, and each file written in place in two
 * halves, key first and certificate first. No request and no handshake fails, a pair that does not match or a
 * half-written file is never served, and a client's handshake sees each new certificate soon after it is complete.
 */
class TlsReloadUnderLoadTest {
    /**
     * Five new connections a second: handshakes land all through each reload, and a machine shared with other builds
     * keeps up (a cold JVM's first TLS handshakes cost tens of milliseconds each).
     */
    private static final int RATE = 10;
    private static final int REQUESTS_PER_CONNECTION = 2;
    private static final int WARMUP_SECONDS = 5;
    private static final int SECONDS = 20;
    /** Longer than the server's poll (100 ms), so that a poll sees the change half done. */
    private static final long HALF_DONE_MILLIS = 350;
    private static final Pattern MEASURING = Pattern.compile("\r\\s*(\\d+)s/\\d+s\\s+[0-9,]+ req/s");

    /** One replacement of the served files. */
    private interface Replacement {
        void apply(Path served, TestCa.Issued next, Path nextChain) throws Exception;
    }

    @Test
    void replacedCertificatesAreServedToNewConnectionsWhileNoRequestOrHandshakeFails() throws Exception {
        try (TestCa ca = TestCa.create("Tern reload CA")) {
            List<TestCa.Issued> pairs = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                pairs.add(ca.server("reload-" + i));
            }
            List<BigInteger> serials = pairs.stream().map(p -> p.x509().getSerialNumber()).toList();
            Path served = mountedSecret(ca, pairs.get(0));
            SSLContextFactory probeContext = new SSLContextFactory(ca);
            List<Replacement> replacements = List.of(
                    (dir, next, chain) -> swapSecret(dir, next, chain),
                    (dir, next, chain) -> {
                        renameInto(next.key(), dir.resolve("key.pem"));
                        Thread.sleep(HALF_DONE_MILLIS);
                        renameInto(chain, dir.resolve("cert.pem"));
                    },
                    (dir, next, chain) -> {
                        writeInTwoHalves(next.key(), dir.resolve("key.pem"));
                        Thread.sleep(HALF_DONE_MILLIS);
                        writeInTwoHalves(chain, dir.resolve("cert.pem"));
                    },
                    (dir, next, chain) -> {
                        writeInTwoHalves(chain, dir.resolve("cert.pem"));
                        Thread.sleep(HALF_DONE_MILLIS);
                        writeInTwoHalves(next.key(), dir.resolve("key.pem"));
                    });

            try (TernProcess tern = TernProcess.http("user-directory", "--tls", "--metrics",
                    "--cert", served.resolve("cert.pem").toString(), "--key", served.resolve("key.pem").toString(),
                    "--tls-reload-interval", "100ms")) {
                int port = URI.create(tern.url()).getPort();
                assertThat(probeContext.servedSerial(port)).isEqualTo(serials.get(0));
                Path json = ca.dir().resolve("bench.json");
                try (TernProcess bench = TernProcess.main(Main.class, "bench", "--url", tern.url(), "--insecure",
                        "--http", "1.1", "--era", "modern", "--rate", Integer.toString(RATE),
                        "--requests-per-connection", Integer.toString(REQUESTS_PER_CONNECTION),
                        "--warmup", WARMUP_SECONDS + "s", "--duration", SECONDS + "s", "--timeout", "30s",
                        "--json", json.toString(),
                        "--md", ca.dir().resolve("bench.md").toString());
                        Probe probe = new Probe(probeContext, port)) {
                    double runStart = awaitMeasuring(bench);
                    List<String> marks = new ArrayList<>();
                    for (int i = 1; i < pairs.size(); i++) {
                        double began = seconds() - runStart;
                        replacements.get(i - 1).apply(served, pairs.get(i), ca.chain(pairs.get(i)));
                        double written = seconds() - runStart;
                        double seen = probe.awaitSerial(serials.get(i)) - runStart;
                        marks.add(String.format(Locale.ROOT, "reload %d: written %.1f–%.1f s, served from %.1f s",
                                i, began, written, seen));
                        Thread.sleep(1_000);
                        assertThat(probe.latest()).as("the certificate served a second after reload %d", i)
                                .isEqualTo(serials.get(i));
                    }
                    assertThat(bench.process().isAlive()).as("the bench still loads after the last reload; its "
                            + "stderr:%n%s", bench.stderr()).isTrue();
                    assertThat(failedHandshakesCounted(probeContext, port))
                            .as("handshakes the server counted as failed, under load after the last reload").isZero();
                    probe.close();
                    assertThat(bench.waitFor(SECONDS + 30, TimeUnit.SECONDS)).as("the bench's exit code; its "
                            + "stderr:%n%s", bench.stderr()).isZero();

                    assertThat(probe.failures).as("the probe's handshakes that failed").isEmpty();
                    assertThat(probe.seen).as("certificates the probe saw, in order").containsAll(serials);
                    assertThat(probe.seen.stream().map(serials::indexOf).toList())
                            .as("each probe saw a certificate issued for the test, never an older one after a newer")
                            .doesNotContain(-1).isSorted();

                    RunResult run = Reports.readJson(json).runs().get(0);
                    assertThat(run.errors()).as("failed requests: %s", run.errorSamples()).isEmpty();
                    assertThat(run.requests()).as("requests measured").isGreaterThan(RATE * SECONDS * 9L / 10);
                    assertThat(run.ok()).isEqualTo(run.requests());
                    assertThat(run.tls().failed()).as("failed handshakes: %s", run.tls().failureSample()).isZero();
                    assertThat(run.tls().full() + run.tls().resumed()).as("handshakes through the run")
                            .isGreaterThan((WARMUP_SECONDS + SECONDS) * RATE / REQUESTS_PER_CONNECTION * 8L / 10);
                    // Every new context has new session ticket keys: a ticket from before a reload cannot resume.
                    assertThat(run.tls().full()).as("full handshakes").isGreaterThanOrEqualTo(pairs.size());
                    report(run, marks, Files.readString(ca.dir().resolve("bench.md")));
                }
            }
        }
    }

    /**
     * The served files as a mounted Kubernetes secret lays them out: {@code cert.pem} and {@code key.pem} are links
     * into {@code ..data}, itself a link to a directory of the current version, replaced by a rename.
     */
    private static Path mountedSecret(TestCa ca, TestCa.Issued first) throws IOException {
        Path served = Files.createDirectories(ca.dir().resolve("served"));
        Path version = Files.createDirectories(served.resolve("..0"));
        Files.copy(ca.chain(first), version.resolve("cert.pem"));
        Files.copy(first.key(), version.resolve("key.pem"));
        Files.createSymbolicLink(served.resolve("..data"), version.getFileName());
        Files.createSymbolicLink(served.resolve("cert.pem"), Path.of("..data", "cert.pem"));
        Files.createSymbolicLink(served.resolve("key.pem"), Path.of("..data", "key.pem"));
        return served;
    }

    /** Both files at once: a new version directory, and {@code ..data} pointed at it by one rename. */
    private static void swapSecret(Path served, TestCa.Issued next, Path nextChain) throws IOException {
        Path version = Files.createDirectories(served.resolve("..1"));
        Files.copy(nextChain, version.resolve("cert.pem"));
        Files.copy(next.key(), version.resolve("key.pem"));
        Path link = Files.createSymbolicLink(served.resolve("..data_tmp"), version.getFileName());
        Files.move(link, served.resolve("..data"), StandardCopyOption.ATOMIC_MOVE,
                StandardCopyOption.REPLACE_EXISTING);
    }

    /** One file: written whole beside the served one, then renamed over it. */
    private static void renameInto(Path source, Path target) throws IOException {
        Path temporary = target.resolveSibling(target.getFileName() + ".tmp");
        Files.copy(source, temporary, StandardCopyOption.REPLACE_EXISTING);
        Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /** Overwrites {@code target} in place, its first half, a pause longer than a poll, then the rest. */
    private static void writeInTwoHalves(Path source, Path target) throws Exception {
        byte[] bytes = Files.readAllBytes(source);
        try (OutputStream out = Files.newOutputStream(target, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE)) {
            out.write(bytes, 0, bytes.length / 2);
            out.flush();
            Thread.sleep(HALF_DONE_MILLIS);
            out.write(bytes, bytes.length / 2, bytes.length - bytes.length / 2);
        }
    }

    /**
     * Waits for the bench's first progress line past its warm-up, and returns when (in {@link #seconds()}) its run
     * began, to within the line's rounding to whole seconds.
     */
    private static double awaitMeasuring(TernProcess bench) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline && bench.process().isAlive()) {
            Matcher m = MEASURING.matcher(bench.stderr());
            if (m.find()) {
                return seconds() - Integer.parseInt(m.group(1));
            }
            Thread.sleep(20);
        }
        throw new AssertionError("the bench did not get past its warm-up; its stderr:\n" + bench.stderr());
    }

    private static double seconds() {
        return System.nanoTime() / 1e9;
    }

    /** The server's count of failed TLS handshakes, from its metrics. */
    private static long failedHandshakesCounted(SSLContextFactory tls, int port) throws Exception {
        HttpClient client = HttpClient.newBuilder().sslContext(tls.fresh()).build();
        HttpResponse<String> metrics = client.send(HttpRequest.newBuilder(
                URI.create("https://127.0.0.1:" + port + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(metrics.statusCode()).isEqualTo(200);
        assertThat(metrics.body()).contains("tern_server_tls_handshakes_total");
        long failed = 0;
        for (String line : metrics.body().lines().toList()) {
            if (line.startsWith("tern_server_tls_handshakes_total{") && line.contains("tls_handshake_failed")) {
                failed += (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return failed;
    }

    /** What the run's figures were around the reloads, for BENCHMARKS.md. */
    private static void report(RunResult run, List<String> marks, String markdown) {
        StringBuilder b = new StringBuilder("TLS reload under load\n");
        marks.forEach(m -> b.append(m).append('\n'));
        b.append(String.format(Locale.ROOT, "requests %d, errors %d, p50 %.3f ms, p99 %.3f ms, p99.9 %.3f ms, "
                + "max %.3f ms; handshakes full %d, resumed %d, failed %d%n", run.requests(), run.errorCount(),
                run.latency().p50Ms(), run.latency().p99Ms(), run.latency().p999Ms(), run.latency().maxMs(),
                run.tls().full(), run.tls().resumed(), run.tls().failed()));
        for (SeriesPoint s : run.series()) {
            b.append(String.format(Locale.ROOT, "second %.0f%s: %d requests, %d errors, p50 %.3f ms, p99 %.3f ms, "
                    + "max %.3f ms%n", s.second(), s.warmup() ? " (warm-up)" : "", s.requests(), s.errors(),
                    s.p50Ms(), s.p99Ms(), s.maxMs()));
        }
        System.out.println(b.append(markdown));
    }

    /** Fresh client contexts trusting the test CA: each handshake is a full one, never resumed. */
    private record SSLContextFactory(TestCa ca) {
        SSLContext fresh() throws Exception {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, ca.trustManagers(), null);
            return context;
        }

        /** The serial of the certificate a new connection is served, after a request on it is answered. */
        BigInteger servedSerial(int port) throws Exception {
            try (SSLSocket socket = (SSLSocket) fresh().getSocketFactory().createSocket(
                    InetAddress.getLoopbackAddress(), port)) {
                socket.setSoTimeout(10_000);
                socket.startHandshake();
                X509Certificate leaf = (X509Certificate) socket.getSession().getPeerCertificates()[0];
                OutputStream out = socket.getOutputStream();
                out.write("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
                        .getBytes(StandardCharsets.US_ASCII));
                out.flush();
                InputStream in = socket.getInputStream();
                String status = new String(in.readNBytes(12), StandardCharsets.US_ASCII);
                if (!status.equals("HTTP/1.1 200")) {
                    throw new IOException("GET /health answered " + status);
                }
                return leaf.getSerialNumber();
            }
        }
    }

    /** A client making a new connection every few tens of milliseconds and noting the certificate each is served. */
    private static final class Probe implements AutoCloseable {
        final List<BigInteger> seen = new CopyOnWriteArrayList<>();
        final List<Throwable> failures = new CopyOnWriteArrayList<>();
        private final Thread thread;
        private volatile boolean stop;
        private volatile BigInteger latest;
        private volatile double latestAt;

        Probe(SSLContextFactory tls, int port) {
            thread = Thread.ofPlatform().name("tls-reload-probe").start(() -> {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
                while (!stop && System.nanoTime() < deadline) {
                    try {
                        BigInteger serial = tls.servedSerial(port);
                        if (seen.isEmpty() || !seen.get(seen.size() - 1).equals(serial)) {
                            seen.add(serial);
                        }
                        latest = serial;
                        latestAt = seconds();
                    } catch (Exception e) {
                        failures.add(e);
                    }
                    try {
                        Thread.sleep(40);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
        }

        BigInteger latest() {
            return latest;
        }

        /** Waits until a new connection is served {@code serial}; returns when (in {@link #seconds()}). */
        double awaitSerial(BigInteger serial) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (System.nanoTime() < deadline) {
                if (serial.equals(latest)) {
                    return latestAt;
                }
                Thread.sleep(5);
            }
            throw new AssertionError("no connection was served certificate " + serial + " within 20 s; seen "
                    + seen + ", failures " + failures);
        }

        @Override
        public void close() throws InterruptedException {
            stop = true;
            thread.join(15_000);
        }
    }
}
