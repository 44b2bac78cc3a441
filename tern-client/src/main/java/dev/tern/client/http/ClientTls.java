package dev.tern.client.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.WeakHashMap;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSessionContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * Client TLS settings shared by any number of {@link HttpClientEngine}s: what server certificates to trust, and one
 * bounded TLS session cache, so a connection to a server some engine already met resumes its session (an
 * abbreviated handshake without certificates). Thread-safe.
 */
public final class ClientTls {
    private final SSLContext context;
    private final boolean verifyHostname;
    private final List<String> protocols;
    /** Engines whose handshake verified a certificate chain: a full handshake. Those absent were resumed. */
    private final Set<SSLEngine> verified = Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));

    private ClientTls(Builder b) {
        try {
            TrustManager trust = new RecordingTrustManager(b.trustAll ? null : trustManager(b.trustStore), verified);
            context = SSLContext.getInstance("TLS");
            context.init(null, new TrustManager[] {trust}, null);
            SSLSessionContext sessions = context.getClientSessionContext();
            sessions.setSessionCacheSize(b.sessionCacheSize);
            sessions.setSessionTimeout((int) Math.max(1, b.sessionTimeout.toSeconds()));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("TLS setup failed: " + e.getMessage(), e);
        }
        verifyHostname = !b.trustAll && b.verifyHostname;
        protocols = b.protocols;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Trusts the JDK's default certificate authorities; one instance, so one session cache, for the process. */
    public static ClientTls system() {
        return Shared.SYSTEM;
    }

    /**
     * Trusts any certificate for any name: for development servers with self-signed certificates only. One instance
     * for the process; build one with {@code builder().trustAll()} for a session cache of its own.
     */
    public static ClientTls insecure() {
        return Shared.INSECURE;
    }

    private static final class Shared {
        static final ClientTls SYSTEM = builder().build();
        static final ClientTls INSECURE = builder().trustAll().build();
    }

    /** The shared session cache (bounded by {@link Builder#sessionCacheSize}). */
    public SSLSessionContext sessionCache() {
        return context.getClientSessionContext();
    }

    SSLEngine newEngine(String host, int port, List<String> alpn) {
        SSLEngine engine = context.createSSLEngine(host, port);
        engine.setUseClientMode(true);
        SSLParameters params = engine.getSSLParameters();
        params.setApplicationProtocols(alpn.toArray(String[]::new));
        params.setProtocols(protocols.toArray(String[]::new));
        if (verifyHostname) {
            params.setEndpointIdentificationAlgorithm("HTTPS");
        }
        engine.setSSLParameters(params);
        return engine;
    }

    /** Whether the finished handshake of {@code engine} resumed a cached session; forgets the engine. */
    boolean resumed(SSLEngine engine) {
        return !verified.remove(engine);
    }

    private static X509TrustManager trustManager(KeyStore store) throws GeneralSecurityException {
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(store);
        for (TrustManager tm : tmf.getTrustManagers()) {
            if (tm instanceof X509TrustManager x) {
                return x;
            }
        }
        throw new IllegalStateException("no X.509 trust manager available");
    }

    public static final class Builder {
        private boolean trustAll;
        private KeyStore trustStore;
        private boolean verifyHostname = true;
        private int sessionCacheSize = 1024;
        private Duration sessionTimeout = Duration.ofHours(1);
        private List<String> protocols = List.of("TLSv1.3", "TLSv1.2");

        private Builder() {
        }

        /** Trusts every certificate and skips host name checks: development only. */
        public Builder trustAll() {
            this.trustAll = true;
            return this;
        }

        /** Trusts the certificates in a trust store instead of the JDK's defaults. */
        public Builder trustStore(KeyStore store) {
            this.trustStore = Objects.requireNonNull(store, "store");
            return this;
        }

        /** Trusts exactly these certificates (a self-signed server certificate, or a private CA). */
        public Builder trust(X509Certificate... certificates) {
            try {
                KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
                store.load(null, null);
                for (int i = 0; i < certificates.length; i++) {
                    store.setCertificateEntry("trusted-" + i, certificates[i]);
                }
                return trustStore(store);
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("cannot build a trust store: " + e.getMessage(), e);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** Trusts the certificates in a PEM file. */
        public Builder trustPem(Path pem) {
            try (InputStream in = Files.newInputStream(pem)) {
                return trust(CertificateFactory.getInstance("X.509").generateCertificates(in).stream()
                        .map(X509Certificate.class::cast).toArray(X509Certificate[]::new));
            } catch (CertificateException e) {
                throw new IllegalArgumentException("not a PEM certificate file: " + pem + ": " + e.getMessage(), e);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** Whether the server's certificate must name the host of the URI (default true; off with trustAll). */
        public Builder verifyHostname(boolean verify) {
            this.verifyHostname = verify;
            return this;
        }

        /** How many TLS sessions the cache keeps (default 1024). */
        public Builder sessionCacheSize(int size) {
            if (size <= 0) {
                throw new IllegalArgumentException("sessionCacheSize: " + size + " (expected: > 0)");
            }
            this.sessionCacheSize = size;
            return this;
        }

        /** How long a cached session may be resumed (default one hour). */
        public Builder sessionTimeout(Duration timeout) {
            this.sessionTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /** TLS versions to offer (default TLSv1.3 and TLSv1.2). */
        public Builder protocols(String... protocols) {
            this.protocols = List.of(protocols);
            return this;
        }

        public ClientTls build() {
            return new ClientTls(this);
        }
    }

    /**
     * Checks server chains with a delegate (or accepts all without one) and remembers the engines it saw a chain on:
     * a resumed handshake carries no certificate, so it never gets here.
     */
    private static final class RecordingTrustManager extends X509ExtendedTrustManager {
        private final X509TrustManager delegate;
        private final Set<SSLEngine> verified;

        RecordingTrustManager(X509TrustManager delegate, Set<SSLEngine> verified) {
            this.delegate = delegate;
            this.verified = verified;
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
                throws CertificateException {
            if (delegate instanceof X509ExtendedTrustManager x) {
                x.checkServerTrusted(chain, authType, engine);
            } else if (delegate != null) {
                delegate.checkServerTrusted(chain, authType);
            }
            verified.add(engine);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
                throws CertificateException {
            if (delegate instanceof X509ExtendedTrustManager x) {
                x.checkServerTrusted(chain, authType, socket);
            } else if (delegate != null) {
                delegate.checkServerTrusted(chain, authType);
            }
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            if (delegate != null) {
                delegate.checkServerTrusted(chain, authType);
            }
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
                throws CertificateException {
            throw new CertificateException("a client does not accept client certificates");
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
                throws CertificateException {
            throw new CertificateException("a client does not accept client certificates");
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            throw new CertificateException("a client does not accept client certificates");
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return delegate == null ? new X509Certificate[0] : delegate.getAcceptedIssuers();
        }
    }
}
