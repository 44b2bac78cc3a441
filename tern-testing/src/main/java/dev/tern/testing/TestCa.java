package dev.tern.testing;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A certificate authority for tests, made with the {@code openssl} command in a temporary directory: it issues server
 * and client certificates (EC P-256, PKCS#8 PEM keys), revokes them, writes its CRL, and keeps the index an
 * {@code openssl ocsp} responder reads. {@link #close()} deletes the directory.
 */
public final class TestCa implements AutoCloseable {
    /** What a test tells the developer when the {@code openssl} command is missing. */
    public static final String INSTALL = "the openssl command is missing: run bin/install-openssl.sh";
    private static final DateTimeFormatter OPENSSL_TIME =
            DateTimeFormatter.ofPattern("yyyyMMddHHmmss'Z'").withZone(ZoneOffset.UTC);

    private final Path dir;
    private final String ocspUrl;
    private final AtomicInteger issued = new AtomicInteger();
    private final AtomicInteger ocspRequests = new AtomicInteger();
    private com.sun.net.httpserver.HttpServer responder;

    /** A certificate and its key, as PEM files. */
    public record Issued(Path certificate, Path key) {
        public X509Certificate x509() {
            return certificates(certificate).get(0);
        }
    }

    private TestCa(Path dir, String ocspUrl) {
        this.dir = dir;
        this.ocspUrl = ocspUrl;
    }

    /** A new CA named {@code name}; the certificates it issues name no OCSP responder. */
    public static TestCa create(String name) {
        return create(name, null);
    }

    /** A new CA named {@code name} whose certificates name {@code ocspUrl} as their OCSP responder (AIA). */
    public static TestCa create(String name, String ocspUrl) {
        try {
            Path dir = Files.createTempDirectory("tern-test-ca");
            TestCa ca = new TestCa(dir, ocspUrl);
            Files.createDirectories(dir.resolve("issued"));
            Files.writeString(dir.resolve("index.txt"), "");
            // A random 127-bit serial, as public authorities issue them (testssl.sh flags short serials).
            byte[] serial = new byte[16];
            new SecureRandom().nextBytes(serial);
            serial[0] = (byte) (serial[0] & 0x7F | 0x40);
            Files.writeString(dir.resolve("serial"), java.util.HexFormat.of().withUpperCase().formatHex(serial) + "\n");
            Files.writeString(dir.resolve("crlnumber"), "1000\n");
            Files.writeString(dir.resolve("ca.cnf"), """
                    [ ca ]
                    default_ca = test_ca
                    [ test_ca ]
                    dir = %s
                    database = $dir/index.txt
                    new_certs_dir = $dir/issued
                    serial = $dir/serial
                    crlnumber = $dir/crlnumber
                    certificate = $dir/ca.pem
                    private_key = $dir/ca.key
                    default_md = sha256
                    default_days = 30
                    default_crl_days = 30
                    policy = any
                    unique_subject = no
                    [ any ]
                    commonName = supplied
                    """.formatted(dir));
            ca.openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "ca.key");
            ca.openssl("req", "-x509", "-new", "-key", "ca.key", "-subj", "/CN=" + name, "-days", "120",
                    "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
                    "-out", "ca.pem");
            return ca;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A new CA named {@code name} with its OCSP responder running, named in the certificates it issues: each request
     * is answered by {@code openssl ocsp} from the CA's index (responses valid a day), behind an HTTP server on
     * 127.0.0.1 ({@code openssl ocsp -port} would listen on every interface). {@link #close()} stops it.
     */
    public static TestCa createWithOcspResponder(String name) {
        com.sun.net.httpserver.HttpServer server;
        try {
            server = com.sun.net.httpserver.HttpServer.create(
                    new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 16);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        TestCa ca = create(name, "http://127.0.0.1:" + server.getAddress().getPort() + "/ocsp");
        ca.responder = server;
        server.createContext("/ocsp", exchange -> {
            try (exchange) {
                Path request = Files.createTempFile(ca.dir, "ocsp-request", ".der");
                Path response = request.resolveSibling(request.getFileName() + ".response");
                Files.write(request, exchange.getRequestBody().readAllBytes());
                ca.openssl("ocsp", "-index", ca.index().toString(), "-rsigner", ca.certificate().toString(),
                        "-rkey", ca.key().toString(), "-CA", ca.certificate().toString(), "-ndays", "1",
                        "-reqin", request.toString(), "-respout", response.toString());
                byte[] body = Files.readAllBytes(response);
                ca.ocspRequests.incrementAndGet();
                exchange.getResponseHeaders().set("Content-Type", "application/ocsp-response");
                exchange.sendResponseHeaders(200, body.length);
                exchange.getResponseBody().write(body);
            }
        });
        server.start();
        return ca;
    }

    /** How many OCSP requests the responder answered. */
    public int ocspRequests() {
        return ocspRequests.get();
    }

    /** A PEM file holding {@code issued}'s certificate followed by this CA's, as a server serves its chain. */
    public Path chain(Issued issued) {
        try {
            Path chain = dir.resolve(issued.certificate().getFileName() + ".chain.pem");
            Files.writeString(chain, Files.readString(issued.certificate()) + Files.readString(certificate()));
            return chain;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The CA's certificate (PEM), what a peer trusts. */
    public Path certificate() {
        return dir.resolve("ca.pem");
    }

    /** The CA's key (PEM), for an OCSP responder signing as the CA. */
    public Path key() {
        return dir.resolve("ca.key");
    }

    /** The CA's database of issued and revoked certificates, as {@code openssl ocsp -index} reads it. */
    public Path index() {
        return dir.resolve("index.txt");
    }

    /** The directory the CA works in (temporary files of a test may go there too). */
    public Path dir() {
        return dir;
    }

    /** A server certificate for {@code localhost}, 127.0.0.1 and ::1, valid from an hour ago for 90 days. */
    public Issued server(String commonName) {
        Instant now = Instant.now();
        return issue(commonName, "serverAuth", "DNS:localhost,IP:127.0.0.1,IP:::1", now.minusSeconds(3600),
                now.plusSeconds(90L * 86_400));
    }

    /** A client certificate, valid from an hour ago for 30 days. */
    public Issued client(String commonName) {
        Instant now = Instant.now();
        return client(commonName, now.minusSeconds(3600), now.plusSeconds(30L * 86_400));
    }

    /** A client certificate valid between {@code notBefore} and {@code notAfter}. */
    public Issued client(String commonName, Instant notBefore, Instant notAfter) {
        return issue(commonName, "clientAuth", "DNS:" + commonName, notBefore, notAfter);
    }

    private Issued issue(String commonName, String usage, String san, Instant notBefore, Instant notAfter) {
        String name = "cert" + issued.incrementAndGet();
        Path ext = dir.resolve(name + ".ext");
        try {
            Files.writeString(ext, "[ leaf ]\nbasicConstraints = critical,CA:FALSE\n"
                    + "keyUsage = critical,digitalSignature\nextendedKeyUsage = " + usage + "\n"
                    + "subjectAltName = " + san + "\nsubjectKeyIdentifier = hash\n"
                    + "authorityKeyIdentifier = keyid\n"
                    + (ocspUrl == null ? "" : "authorityInfoAccess = OCSP;URI:" + ocspUrl + "\n"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", name + ".key");
        openssl("req", "-new", "-key", name + ".key", "-subj", "/CN=" + commonName, "-out", name + ".csr");
        openssl("ca", "-batch", "-config", "ca.cnf", "-notext", "-in", name + ".csr", "-out", name + ".pem",
                "-startdate", OPENSSL_TIME.format(notBefore), "-enddate", OPENSSL_TIME.format(notAfter),
                "-extfile", ext.toString(), "-extensions", "leaf");
        return new Issued(dir.resolve(name + ".pem"), dir.resolve(name + ".key"));
    }

    /** Marks {@code certificate} revoked in the CA's database (see {@link #crl()}). */
    public void revoke(Issued certificate) {
        openssl("ca", "-config", "ca.cnf", "-revoke", certificate.certificate().toString());
    }

    /** Writes the CA's current CRL (PEM), valid for 30 days, and returns its file. */
    public Path crl() {
        openssl("ca", "-config", "ca.cnf", "-gencrl", "-out", "crl.pem");
        return dir.resolve("crl.pem");
    }

    /** Runs {@code openssl} in the CA's directory; fails with its output when it fails. */
    public String openssl(String... args) {
        List<String> command = new ArrayList<>();
        command.add("openssl");
        command.addAll(List.of(args));
        try {
            Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IllegalStateException(command + " failed: " + output);
            }
            return output;
        } catch (IOException e) {
            throw new IllegalStateException(INSTALL + " (" + e.getMessage() + ")", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** Trust managers trusting this CA alone. */
    public javax.net.ssl.TrustManager[] trustManagers() {
        try {
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            trust.setCertificateEntry("ca", certificates(certificate()).get(0));
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            return tmf.getTrustManagers();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A client TLS context trusting this CA and presenting {@code identity} (none when {@code null}). */
    public SSLContext clientContext(Issued identity) {
        try {
            javax.net.ssl.KeyManager[] keyManagers = null;
            if (identity != null) {
                PrivateKey key = privateKey(identity.key());
                X509Certificate[] chain = certificates(identity.certificate()).toArray(new X509Certificate[0]);
                keyManagers = new javax.net.ssl.KeyManager[] {new AlwaysPresents(key, chain)};
            }
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(keyManagers, trustManagers(), new SecureRandom());
            return ctx;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Presents its certificate whatever authorities the server names, as a misconfigured or hostile client would (the
     * JDK's own key manager stays silent when the server does not name the certificate's issuer).
     */
    private static final class AlwaysPresents extends javax.net.ssl.X509ExtendedKeyManager {
        private final PrivateKey key;
        private final X509Certificate[] chain;

        AlwaysPresents(PrivateKey key, X509Certificate[] chain) {
            this.key = key;
            this.chain = chain;
        }

        @Override
        public String[] getClientAliases(String keyType, java.security.Principal[] issuers) {
            return new String[] {"me"};
        }

        @Override
        public String chooseClientAlias(String[] keyType, java.security.Principal[] issuers, java.net.Socket socket) {
            return "me";
        }

        @Override
        public String chooseEngineClientAlias(String[] keyType, java.security.Principal[] issuers,
                javax.net.ssl.SSLEngine engine) {
            return "me";
        }

        @Override
        public String[] getServerAliases(String keyType, java.security.Principal[] issuers) {
            return null;
        }

        @Override
        public String chooseServerAlias(String keyType, java.security.Principal[] issuers, java.net.Socket socket) {
            return null;
        }

        @Override
        public X509Certificate[] getCertificateChain(String alias) {
            return chain.clone();
        }

        @Override
        public PrivateKey getPrivateKey(String alias) {
            return key;
        }
    }

    /** The certificates of a PEM file, in order. */
    public static List<X509Certificate> certificates(Path pem) {
        try {
            CertificateFactory factory = CertificateFactory.getInstance("X.509");
            return factory.generateCertificates(new ByteArrayInputStream(Files.readAllBytes(pem))).stream()
                    .map(X509Certificate.class::cast).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static PrivateKey privateKey(Path pem) throws IOException, java.security.GeneralSecurityException {
        String text = Files.readString(pem);
        String base64 = text.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
        return KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(base64)));
    }

    @Override
    public void close() {
        if (responder != null) {
            responder.stop(0);
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
