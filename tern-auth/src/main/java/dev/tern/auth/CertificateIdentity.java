package dev.tern.auth;

import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.List;
import java.util.Locale;

import javax.security.auth.x500.X500Principal;

/**
 * Which name of a verified TLS client certificate a request without a bearer token is known by
 * ({@link ResourceServer.Builder#clientCertificates}): the subject's distinguished name, or the first subject
 * alternative name of a kind.
 */
public enum CertificateIdentity {
    /** The subject's distinguished name in RFC 2253 form, say {@code CN=billing,O=Example}. */
    SUBJECT(-1),
    /** The first {@code dNSName} subject alternative name. */
    DNS(2),
    /** The first {@code rfc822Name} (e-mail) subject alternative name. */
    EMAIL(1),
    /** The first {@code uniformResourceIdentifier} subject alternative name, say a SPIFFE ID. */
    URI(6);

    // The GeneralName tag of RFC 5280 §4.2.1.6, as X509Certificate.getSubjectAlternativeNames reports it.
    private final int sanType;

    CertificateIdentity(int sanType) {
        this.sanType = sanType;
    }

    /** This identity by its name in any case ({@code subject}, {@code dns}, {@code email}, {@code uri}). */
    public static CertificateIdentity parse(String name) {
        try {
            return valueOf(name.strip().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("certificate identity: " + name
                    + " (expected: subject, dns, email or uri)", e);
        }
    }

    /** The certificate's name of this kind, or {@code null} when it has none. */
    String of(X509Certificate certificate) {
        if (sanType < 0) {
            String subject = certificate.getSubjectX500Principal().getName(X500Principal.RFC2253);
            return subject.isEmpty() ? null : subject;
        }
        Collection<List<?>> names;
        try {
            names = certificate.getSubjectAlternativeNames();
        } catch (CertificateParsingException e) {
            return null;
        }
        if (names != null) {
            for (List<?> name : names) {
                if (name.size() >= 2 && name.get(0) instanceof Integer type && type == sanType
                        && name.get(1) instanceof String value && !value.isEmpty()) {
                    return value;
                }
            }
        }
        return null;
    }
}
