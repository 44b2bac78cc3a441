package dev.tern.auth;

import java.security.cert.X509Certificate;
import java.text.ParseException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.KeySourceException;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.jwk.source.JWKSourceBuilder;
import com.nimbusds.jose.jwk.source.RateLimitReachedException;
import com.nimbusds.jose.proc.BadJOSEException;
import com.nimbusds.jose.proc.DefaultJOSEObjectTypeVerifier;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jwt.EncryptedJWT;
import com.nimbusds.jwt.JWT;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.JWTParser;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;
import com.nimbusds.jwt.proc.BadJWTException;
import com.nimbusds.jwt.proc.ConfigurableJWTProcessor;
import com.nimbusds.jwt.proc.DefaultJWTClaimsVerifier;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;
import com.nimbusds.jwt.proc.ExpiredJWTException;

/**
 * Checks a JWT access token with Nimbus JOSE+JWT: signed (never {@code alg: none}) with an allowed asymmetric
 * algorithm by a key the issuer publishes, from a configured issuer, for this resource ({@code aud}, RFC 8707),
 * within {@code nbf}/{@code exp} give or take the clock skew, and bound to the client certificate where it says so.
 */
final class JwtVerifier {
    /** RFC 9068 access tokens are typed {@code at+jwt}; plain {@code JWT} and no type are what most servers send. */
    private static final DefaultJOSEObjectTypeVerifier<SecurityContext> TYPES = new DefaultJOSEObjectTypeVerifier<>(
            JOSEObjectType.JWT, new JOSEObjectType("at+jwt"), new JOSEObjectType("application/at+jwt"), null);

    private final Map<String, ConfigurableJWTProcessor<SecurityContext>> processors = new HashMap<>();
    private final Map<String, IssuerKeys> keysByIssuer = new HashMap<>();
    private final List<IssuerKeys> keys;

    JwtVerifier(String resource, List<String> issuers, Set<JWSAlgorithm> algorithms, Duration clockSkew,
            Duration keyCacheTtl, Duration keyRefreshMinInterval, Duration httpTimeout, HttpFetcher http) {
        List<IssuerKeys> all = new ArrayList<>();
        for (String issuer : issuers) {
            IssuerKeys issuerKeys = new IssuerKeys(issuer, http);
            all.add(issuerKeys);
            keysByIssuer.put(issuer, issuerKeys);
            JWKSource<SecurityContext> source = JWKSourceBuilder.create(issuerKeys)
                    .cache(keyCacheTtl.toMillis(), httpTimeout.toMillis())
                    .rateLimited(keyRefreshMinInterval.toMillis())
                    // Keys already fetched are used past their time while the issuer cannot be reached.
                    .outageTolerant(true)
                    .build();
            DefaultJWTProcessor<SecurityContext> processor = new DefaultJWTProcessor<>();
            processor.setJWSTypeVerifier(TYPES);
            processor.setJWSKeySelector(new JWSVerificationKeySelector<>(algorithms, source));
            DefaultJWTClaimsVerifier<SecurityContext> claims = new DefaultJWTClaimsVerifier<>(
                    Set.of(resource),
                    new JWTClaimsSet.Builder().issuer(issuer).build(),
                    Set.of("iss", "sub", "aud", "exp"),
                    Set.of());
            claims.setMaxClockSkew(Math.toIntExact(clockSkew.toSeconds()));
            processor.setJWTClaimsSetVerifier(claims);
            processors.put(issuer, processor);
        }
        this.keys = List.copyOf(all);
    }

    /** Whether the token has the shape of a JWS or JWE compact serialization (three or five dot-separated parts). */
    static boolean looksLikeJwt(String token) {
        int dots = 0;
        for (int i = 0; i < token.length(); i++) {
            if (token.charAt(i) == '.') {
                dots++;
            }
        }
        return dots == 2 || dots == 4;
    }

    AccessPrincipal verify(String token, X509Certificate clientCertificate) {
        JWT jwt;
        try {
            jwt = JWTParser.parse(token);
        } catch (ParseException e) {
            throw new InvalidTokenException("The access token is not a well-formed JWT");
        }
        if (jwt instanceof PlainJWT) {
            throw new InvalidTokenException("The access token is not signed");
        }
        if (jwt instanceof EncryptedJWT || !(jwt instanceof SignedJWT signed)) {
            throw new InvalidTokenException("Encrypted access tokens are not accepted");
        }
        String issuer;
        try {
            issuer = signed.getJWTClaimsSet().getIssuer();
        } catch (ParseException e) {
            throw new InvalidTokenException("The access token's claims are not a JSON object");
        }
        ConfigurableJWTProcessor<SecurityContext> processor = issuer == null ? null : processors.get(issuer);
        if (processor == null) {
            throw new InvalidTokenException("The access token's issuer is not accepted");
        }
        JWTClaimsSet claims;
        try {
            claims = processor.process(signed, null);
        } catch (ExpiredJWTException e) {
            throw new InvalidTokenException("The access token has expired", e);
        } catch (BadJWTException e) {
            throw new InvalidTokenException(describe(e), e);
        } catch (BadJOSEException e) {
            throw new InvalidTokenException("The access token's signature does not verify", e);
        } catch (RateLimitReachedException e) {
            if (!keysByIssuer.get(issuer).loaded()) {
                throw new VerifierUnavailableException("keys of " + issuer + ": not fetched yet", e);
            }
            // Keys were just fetched: a key id they lack is the token's fault, and must not reach the issuer again.
            throw new InvalidTokenException("The access token's signature does not verify", e);
        } catch (KeySourceException e) {
            throw new VerifierUnavailableException("keys of " + issuer + ": " + e.getMessage(), e);
        } catch (JOSEException e) {
            throw new InvalidTokenException("The access token's signature does not verify", e);
        }
        Map<String, Object> all = claims.toJSONObject();
        CertificateBinding.check(all.get("cnf"), clientCertificate);
        return AccessPrincipal.of(issuer, claims.getSubject(), Claims.clientId(all), Claims.scopes(all), all,
                claims.getExpirationTime() == null ? null : claims.getExpirationTime().toInstant());
    }

    private static String describe(BadJWTException e) {
        String message = String.valueOf(e.getMessage());
        if (message.contains("aud claim")) {
            return "The access token was not issued for this resource";
        }
        if (message.contains("before use time")) {
            return "The access token is not valid yet";
        }
        if (message.contains("iss")) {
            return "The access token's issuer is not accepted";
        }
        if (message.contains("missing required claims")) {
            return "The access token lacks a required claim (iss, sub, aud, exp)";
        }
        return "The access token is not valid";
    }

    void close() {
        for (IssuerKeys issuerKeys : keys) {
            try {
                issuerKeys.close();
            } catch (java.io.IOException e) {
                // nothing is left to release: the source holds no connection of its own
            }
        }
    }
}
