package dev.tern.transport.http;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CRL;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.Collection;
import java.util.List;

/** Reads the PEM files TLS is configured with: certificate chains, PKCS#8 keys and CRLs. */
final class PemFiles {
    private static final String PKCS8_BEGIN = "-----BEGIN PRIVATE KEY-----";
    private static final String PKCS8_END = "-----END PRIVATE KEY-----";
    private static final List<String> KEY_ALGORITHMS = List.of("EC", "RSA", "Ed25519", "Ed448", "RSASSA-PSS");

    private PemFiles() {
    }

    /** The certificates in a PEM file, in order; fails when there is none. */
    static List<X509Certificate> certificates(Path file) throws IOException, GeneralSecurityException {
        List<X509Certificate> certificates = CertificateFactory.getInstance("X.509")
                .generateCertificates(new ByteArrayInputStream(Files.readAllBytes(file))).stream()
                .map(X509Certificate.class::cast).toList();
        if (certificates.isEmpty()) {
            throw new GeneralSecurityException(file + ": no PEM certificate");
        }
        return certificates;
    }

    /** The CRLs in a PEM file; fails when there is none. */
    static Collection<? extends CRL> crls(Path file) throws IOException, GeneralSecurityException {
        Collection<? extends CRL> crls = CertificateFactory.getInstance("X.509")
                .generateCRLs(new ByteArrayInputStream(Files.readAllBytes(file)));
        if (crls.isEmpty()) {
            throw new GeneralSecurityException(file + ": no PEM CRL");
        }
        return crls;
    }

    /** The unencrypted PKCS#8 key ({@code BEGIN PRIVATE KEY}) in a PEM file. */
    static PrivateKey privateKey(Path file) throws IOException, GeneralSecurityException {
        String text = Files.readString(file, StandardCharsets.US_ASCII);
        int begin = text.indexOf(PKCS8_BEGIN);
        int end = text.indexOf(PKCS8_END);
        if (begin < 0 || end < begin) {
            throw new GeneralSecurityException(file + ": no unencrypted PKCS#8 key (BEGIN PRIVATE KEY); convert one "
                    + "with: openssl pkcs8 -topk8 -nocrypt -in KEY -out KEY.pkcs8");
        }
        byte[] der = Base64.getMimeDecoder().decode(text.substring(begin + PKCS8_BEGIN.length(), end));
        for (String algorithm : KEY_ALGORITHMS) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
            } catch (GeneralSecurityException wrongAlgorithm) {
                // the next one
            }
        }
        throw new GeneralSecurityException(file + ": a key of none of " + KEY_ALGORITHMS);
    }

    /** Fails unless {@code key} is the private half of {@code certificate}'s public key (a signature proves it). */
    static void checkPair(PrivateKey key, X509Certificate certificate) throws GeneralSecurityException {
        PublicKey publicKey = certificate.getPublicKey();
        String algorithm = switch (key.getAlgorithm()) {
            case "EC" -> "SHA256withECDSA";
            case "RSA" -> "SHA256withRSA";
            case "RSASSA-PSS" -> "RSASSA-PSS";
            default -> key.getAlgorithm();
        };
        byte[] probe = new byte[32];
        new SecureRandom().nextBytes(probe);
        boolean matches;
        try {
            Signature signer = Signature.getInstance(algorithm);
            if (algorithm.equals("RSASSA-PSS")) {
                signer.setParameter(new java.security.spec.PSSParameterSpec("SHA-256", "MGF1",
                        java.security.spec.MGF1ParameterSpec.SHA256, 32, 1));
            }
            signer.initSign(key);
            signer.update(probe);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            if (algorithm.equals("RSASSA-PSS")) {
                verifier.setParameter(new java.security.spec.PSSParameterSpec("SHA-256", "MGF1",
                        java.security.spec.MGF1ParameterSpec.SHA256, 32, 1));
            }
            verifier.initVerify(publicKey);
            verifier.update(probe);
            matches = verifier.verify(signature);
        } catch (java.security.InvalidKeyException e) {
            matches = false;
        }
        if (!matches) {
            throw new GeneralSecurityException("the key does not match the certificate "
                    + certificate.getSubjectX500Principal());
        }
    }
}
