package dev.tern.transport.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

import java.security.PrivateKey;
import java.security.cert.CertPathValidator;
import java.security.cert.CertStore;
import java.security.cert.CollectionCertStoreParameters;
import java.security.cert.PKIXBuilderParameters;
import java.security.cert.PKIXRevocationChecker;
import java.security.cert.TrustAnchor;
import java.security.cert.X509CertSelector;
import java.security.cert.X509Certificate;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Set;

import javax.net.ssl.CertPathTrustManagerParameters;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;

import io.netty.handler.codec.http2.Http2SecurityUtil;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.SupportedCipherSuiteFilter;

/** TLS 1.3/1.2 with ALPN (h2, http/1.1), from PEM files or a self-signed development certificate. */
final class TlsSupport {
    static {
        // Client-initiated renegotiation on TLS 1.2 is a DoS vector the JDK accepts by default.
        if (System.getProperty("jdk.tls.rejectClientInitiatedRenegotiation") == null) {
            System.setProperty("jdk.tls.rejectClientInitiatedRenegotiation", "true");
        }
    }

    private TlsSupport() {
    }

    /** The certificate chain {@code tls} names, read now; {@code null} for a self-signed development certificate. */
    static List<X509Certificate> chain(HttpOptions.Tls tls) {
        if (tls.selfSigned()) {
            return null;
        }
        try {
            return PemFiles.certificates(tls.certificateChain());
        } catch (IOException e) {
            throw new IllegalStateException("TLS setup failed: cannot read " + e.getMessage(), e);
        } catch (GeneralSecurityException | RuntimeException e) {
            throw new IllegalStateException("TLS setup failed: " + e.getMessage(), e);
        }
    }

    /**
     * A context serving {@code chain} (from {@link #chain}) and the other files {@code tls} names, read now; fails with
     * what is wrong with them.
     */
    static SslContext context(HttpOptions.Tls tls, List<X509Certificate> chain) {
        try {
            SslContextBuilder builder;
            if (tls.selfSigned()) {
                builder = SslContextBuilder.forServer(selfSigned());
            } else {
                PrivateKey key = PemFiles.privateKey(tls.privateKey());
                PemFiles.checkPair(key, chain.get(0));
                builder = SslContextBuilder.forServer(key, chain);
            }
            if (tls.clientAuth() != HttpOptions.Tls.ClientAuth.NONE) {
                builder.clientAuth(tls.clientAuth() == HttpOptions.Tls.ClientAuth.REQUIRED ? ClientAuth.REQUIRE
                        : ClientAuth.OPTIONAL).trustManager(clientTrust(tls.trust(), tls.revocationList()));
            }
            if (stapling(tls)) {
                builder.enableOcsp(true);
            }
            return builder.sslProvider(provider())
                    .protocols(tls.protocols())
                    .ciphers(Http2SecurityUtil.CIPHERS, SupportedCipherSuiteFilter.INSTANCE)
                    .sessionCacheSize(10_000)
                    .sessionTimeout(TimeUnit.HOURS.toSeconds(1))
                    .applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
                            ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                            ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                            ApplicationProtocolNames.HTTP_2, ApplicationProtocolNames.HTTP_1_1))
                    .build();
        } catch (IOException e) {
            throw new IllegalStateException("TLS setup failed: cannot read " + e.getMessage(), e);
        } catch (GeneralSecurityException | RuntimeException e) {
            throw new IllegalStateException("TLS setup failed: " + e.getMessage(), e);
        }
    }

    /**
     * Verifies client certificates by PKIX against the authorities in {@code trust}; with {@code crls}, each
     * certificate in the chain against its authority's CRL there, and never over the network (no OCSP, no CRL
     * distribution points): the handshake runs on an event loop, which must not wait for a responder.
     */
    static TrustManagerFactory clientTrust(Path trust, Path crls) throws IOException, GeneralSecurityException {
        Set<TrustAnchor> anchors = new HashSet<>();
        for (X509Certificate authority : PemFiles.certificates(trust)) {
            anchors.add(new TrustAnchor(authority, null));
        }
        PKIXBuilderParameters parameters = new PKIXBuilderParameters(anchors, new X509CertSelector());
        if (crls == null) {
            parameters.setRevocationEnabled(false);
        } else {
            parameters.addCertStore(CertStore.getInstance("Collection",
                    new CollectionCertStoreParameters(PemFiles.crls(crls))));
            PKIXRevocationChecker revocation =
                    (PKIXRevocationChecker) CertPathValidator.getInstance("PKIX").getRevocationChecker();
            revocation.setOptions(EnumSet.of(PKIXRevocationChecker.Option.PREFER_CRLS,
                    PKIXRevocationChecker.Option.NO_FALLBACK));
            parameters.setRevocationEnabled(true);
            parameters.addCertPathChecker(revocation);
        }
        TrustManagerFactory factory = TrustManagerFactory.getInstance("PKIX");
        factory.init(new CertPathTrustManagerParameters(parameters));
        return factory;
    }

    /** Whether {@code tls} asks for OCSP stapling and the provider can staple. */
    static boolean stapling(HttpOptions.Tls tls) {
        return tls.ocspStapling() && provider() == SslProvider.OPENSSL && OpenSsl.isOcspSupported();
    }

    /** BoringSSL (netty-tcnative) where its native library loads: cheaper records and handshakes; else the JDK's. */
    static SslProvider provider() {
        return OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK;
    }

    /**
     * A key manager for a fresh EC P-256 certificate for localhost and 127.0.0.1, valid 30 days, made with the JDK's
     * keytool so no extra library is needed.
     */
    private static KeyManagerFactory selfSigned() {
        try {
            Path dir = Files.createTempDirectory("tern-tls");
            Path store = dir.resolve("dev.p12");
            char[] password = HexFormat.of().formatHex(new SecureRandom().generateSeed(16)).toCharArray();
            Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
            Process p = new ProcessBuilder(List.of(keytool.toString(), "-genkeypair", "-alias", "tern",
                    "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=localhost",
                    "-ext", "SAN=dns:localhost,ip:127.0.0.1,ip:::1", "-validity", "30",
                    "-storetype", "PKCS12", "-keystore", store.toString(), "-storepass", new String(password)))
                    .redirectErrorStream(true).start();
            String output = new String(p.getInputStream().readAllBytes());
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException("keytool failed to make a development certificate: " + output);
            }
            KeyStore ks = KeyStore.getInstance("PKCS12");
            try (InputStream in = Files.newInputStream(store)) {
                ks.load(in, password);
            }
            Files.delete(store);
            Files.delete(dir);
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(ks, password);
            return kmf;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("TLS setup failed: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while making a development certificate", e);
        }
    }
}
