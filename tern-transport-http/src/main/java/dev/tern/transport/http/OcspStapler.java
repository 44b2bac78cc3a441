package dev.tern.transport.http;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;

import org.bouncycastle.asn1.ASN1Primitive;
import org.bouncycastle.asn1.DEROctetString;
import org.bouncycastle.asn1.x509.AccessDescription;
import org.bouncycastle.asn1.x509.AuthorityInformationAccess;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateHolder;
import org.bouncycastle.cert.ocsp.BasicOCSPResp;
import org.bouncycastle.cert.ocsp.CertificateID;
import org.bouncycastle.cert.ocsp.OCSPException;
import org.bouncycastle.cert.ocsp.OCSPReqBuilder;
import org.bouncycastle.cert.ocsp.OCSPResp;
import org.bouncycastle.cert.ocsp.RevokedStatus;
import org.bouncycastle.cert.ocsp.SingleResp;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentVerifierProviderBuilder;
import org.bouncycastle.operator.jcajce.JcaDigestCalculatorProviderBuilder;

/**
 * Fetches the OCSP response for the served certificate from the responder its Authority Information Access names,
 * for the server to staple to its handshakes, and tells when to fetch the next: half-way to the response's
 * {@code nextUpdate}, so that a stapled response never runs out while the responder answers. A response that does not
 * verify against the issuer, or does not answer for this certificate, is never stapled; one past its
 * {@code nextUpdate} is dropped.
 */
final class OcspStapler {
    private static final System.Logger LOG = System.getLogger("dev.tern.transport.http");
    private static final Duration RETRY = Duration.ofMinutes(1);
    private static final Duration WITHOUT_NEXT_UPDATE = Duration.ofHours(1);
    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    private final X509Certificate certificate;
    private final X509Certificate issuer;
    private final URI responder;
    private final HttpClient http;
    private volatile Stapled stapled;

    /** A response to staple and when it stops being valid ({@code null}: no {@code nextUpdate}). */
    private record Stapled(byte[] der, Instant nextUpdate) {
    }

    private OcspStapler(X509Certificate certificate, X509Certificate issuer, URI responder) {
        this.certificate = certificate;
        this.issuer = issuer;
        this.responder = responder;
        this.http = HttpClient.newBuilder().connectTimeout(TIMEOUT).followRedirects(HttpClient.Redirect.NEVER).build();
    }

    /**
     * A stapler for the first certificate of {@code chain}, or {@code null} (logged) when it names no OCSP responder
     * or its issuer is not the chain's second certificate.
     */
    static OcspStapler forChain(java.util.List<X509Certificate> chain) {
        X509Certificate leaf = chain.get(0);
        URI responder = responder(leaf);
        if (responder == null) {
            LOG.log(System.Logger.Level.WARNING, "No OCSP stapling: the certificate {0} names no OCSP responder",
                    leaf.getSubjectX500Principal());
            return null;
        }
        if (chain.size() < 2 || !chain.get(1).getSubjectX500Principal().equals(leaf.getIssuerX500Principal())) {
            LOG.log(System.Logger.Level.WARNING, "No OCSP stapling: the certificate file must hold the issuer''s "
                    + "certificate after the certificate of {0}", leaf.getSubjectX500Principal());
            return null;
        }
        return new OcspStapler(leaf, chain.get(1), responder);
    }

    /** The OCSP responder's URL in the certificate's Authority Information Access, or {@code null}. */
    static URI responder(X509Certificate certificate) {
        byte[] extension = certificate.getExtensionValue(Extension.authorityInfoAccess.getId());
        if (extension == null) {
            return null;
        }
        try {
            AuthorityInformationAccess aia = AuthorityInformationAccess.getInstance(
                    ASN1Primitive.fromByteArray(DEROctetString.getInstance(extension).getOctets()));
            for (AccessDescription d : aia.getAccessDescriptions()) {
                if (d.getAccessMethod().equals(AccessDescription.id_ad_ocsp)
                        && d.getAccessLocation().getTagNo() == GeneralName.uniformResourceIdentifier) {
                    URI uri = URI.create(d.getAccessLocation().getName().toString());
                    if ("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) {
                        return uri;
                    }
                }
            }
            return null;
        } catch (IOException | IllegalArgumentException e) {
            return null;
        }
    }

    /** The DER response to staple now, or {@code null}. */
    byte[] response() {
        Stapled s = stapled;
        if (s == null) {
            return null;
        }
        if (s.nextUpdate() != null && !Instant.now().isBefore(s.nextUpdate())) {
            stapled = null;
            return null;
        }
        return s.der();
    }

    /** Fetches a fresh response (blocking, bounded by a timeout) and returns how long to wait before the next. */
    Duration refresh() {
        try {
            CertificateID id = new CertificateID(new JcaDigestCalculatorProviderBuilder().build()
                    .get(CertificateID.HASH_SHA1), new JcaX509CertificateHolder(issuer), certificate.getSerialNumber());
            byte[] request = new OCSPReqBuilder().addRequest(id).build().getEncoded();
            HttpResponse<byte[]> reply = http.send(HttpRequest.newBuilder(responder).timeout(TIMEOUT)
                    .header("Content-Type", "application/ocsp-request")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(request)).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            if (reply.statusCode() != 200) {
                return failed("the responder answered HTTP " + reply.statusCode());
            }
            OCSPResp response = new OCSPResp(reply.body());
            if (response.getStatus() != OCSPResp.SUCCESSFUL) {
                return failed("the responder answered status " + response.getStatus());
            }
            BasicOCSPResp basic = (BasicOCSPResp) response.getResponseObject();
            if (!signedByIssuer(basic)) {
                return failed("the response is not signed by the issuer or a responder it delegated to");
            }
            SingleResp answer = null;
            for (SingleResp single : basic.getResponses()) {
                if (single.getCertID().equals(id)) {
                    answer = single;
                }
            }
            if (answer == null) {
                return failed("the response does not answer for the certificate");
            }
            Instant now = Instant.now();
            Date next = answer.getNextUpdate();
            Instant nextUpdate = next == null ? null : next.toInstant();
            if (nextUpdate != null && !now.isBefore(nextUpdate)) {
                return failed("the response is out of date (nextUpdate " + nextUpdate + ")");
            }
            if (answer.getCertStatus() instanceof RevokedStatus) {
                LOG.log(System.Logger.Level.WARNING, "The OCSP responder says the served certificate {0} is revoked",
                        certificate.getSubjectX500Principal());
            }
            stapled = new Stapled(response.getEncoded(), nextUpdate);
            if (nextUpdate == null) {
                return WITHOUT_NEXT_UPDATE;
            }
            Instant thisUpdate = answer.getThisUpdate().toInstant();
            Duration wait = Duration.between(now, thisUpdate.plus(Duration.between(thisUpdate, nextUpdate).dividedBy(2)));
            return wait.compareTo(RETRY) < 0 ? RETRY : wait;
        } catch (IOException | OCSPException | OperatorCreationException
                | java.security.cert.CertificateEncodingException | RuntimeException e) {
            return failed(e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return RETRY;
        }
    }

    /** Whether the issuer signed the response, or a responder whose certificate (in the response) the issuer signed. */
    private boolean signedByIssuer(BasicOCSPResp basic) throws OCSPException, OperatorCreationException {
        JcaContentVerifierProviderBuilder verifiers = new JcaContentVerifierProviderBuilder();
        if (basic.isSignatureValid(verifiers.build(issuer.getPublicKey()))) {
            return true;
        }
        for (X509CertificateHolder delegate : basic.getCerts()) {
            try {
                if (delegate.isSignatureValid(verifiers.build(issuer.getPublicKey()))
                        && delegate.isValidOn(new Date())
                        && delegate.getExtensions() != null
                        && org.bouncycastle.asn1.x509.ExtendedKeyUsage.fromExtensions(delegate.getExtensions()) != null
                        && org.bouncycastle.asn1.x509.ExtendedKeyUsage.fromExtensions(delegate.getExtensions())
                                .hasKeyPurposeId(org.bouncycastle.asn1.x509.KeyPurposeId.id_kp_OCSPSigning)
                        && basic.isSignatureValid(verifiers.build(delegate))) {
                    return true;
                }
            } catch (org.bouncycastle.cert.CertException | java.security.cert.CertificateException e) {
                // not this one
            }
        }
        return false;
    }

    private Duration failed(String why) {
        LOG.log(System.Logger.Level.WARNING, "OCSP stapling: no fresh response from {0}: {1}", responder, why);
        return RETRY;
    }
}
