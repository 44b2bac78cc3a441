package dev.tern.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.cert.X509Certificate;
import java.util.Map;

import com.nimbusds.jose.util.X509CertUtils;

/** RFC 8705 §3: a token whose {@code cnf} names a certificate thumbprint is good only with that certificate. */
final class CertificateBinding {
    static final String THUMBPRINT = "x5t#S256";

    private CertificateBinding() {
    }

    static void check(Object cnf, X509Certificate clientCertificate) {
        if (!(cnf instanceof Map<?, ?> confirmation) || !(confirmation.get(THUMBPRINT) instanceof String expected)) {
            return;
        }
        if (clientCertificate == null) {
            throw new InvalidTokenException("The access token is bound to a client certificate the request lacks");
        }
        String actual = X509CertUtils.computeSHA256Thumbprint(clientCertificate).toString();
        if (!MessageDigest.isEqual(actual.getBytes(StandardCharsets.US_ASCII),
                expected.getBytes(StandardCharsets.US_ASCII))) {
            throw new InvalidTokenException("The access token is bound to another client certificate");
        }
    }
}
