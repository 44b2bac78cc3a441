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

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLException;

import io.netty.handler.codec.http2.Http2SecurityUtil;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
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

    static SslContext context(HttpOptions.Tls tls) {
        try {
            SslContextBuilder builder = tls.selfSigned()
                    ? SslContextBuilder.forServer(selfSigned())
                    : SslContextBuilder.forServer(tls.certificateChain().toFile(), tls.privateKey().toFile());
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
        } catch (SSLException e) {
            throw new IllegalStateException("TLS setup failed: " + e.getMessage(), e);
        }
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
