package dev.tern.auth;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.nimbusds.jose.JWSAlgorithm;

/**
 * An MCP server in its OAuth 2.1 resource server role: it answers each request's {@code Authorization} header with the
 * principal the token stands for, or with the challenge to send back (401 with where to find the authorization
 * server, 403 naming the scopes to ask for), and publishes the RFC 9728 metadata that points clients to the
 * authorization server. Bearer tokens are accepted only from the header, only when issued by a configured
 * authorization server for this very resource (RFC 8707). Safe for concurrent use; close it to release its HTTP
 * client.
 *
 * <pre>{@code
 * ResourceServer auth = ResourceServer.builder("https://mcp.example.com/mcp")
 *         .authorizationServer("https://auth.example.com")
 *         .scopesSupported("users:read", "users:write")
 *         .build();
 * AuthOutcome outcome = auth.authenticate(request.header("Authorization"));
 * }</pre>
 */
public final class ResourceServer implements AutoCloseable {
    private static final String BEARER = "bearer";

    private final String resource;
    private final List<String> authorizationServers;
    private final List<String> scopesSupported;
    private final List<String> requiredScopes;
    private final ProtectedResourceMetadata metadata;
    private final Challenges challenges;
    private final Map<String, TokenVerifier> verifiers;
    private final TokenExchange tokenExchange;
    private final Duration retryAfter;
    private final HttpFetcher http;
    private final JwtVerifier jwt;
    private final CertificateIdentity certificateIdentity;
    private final Set<String> certificateScopes;
    private final String description;

    private ResourceServer(Builder builder) {
        this.resource = builder.resource;
        this.authorizationServers = List.copyOf(builder.authorizationServers);
        this.scopesSupported = List.copyOf(builder.scopesSupported);
        this.requiredScopes = List.copyOf(builder.requiredScopes);
        this.metadata = new ProtectedResourceMetadata(resource, authorizationServers, scopesSupported);
        this.challenges = new Challenges(metadata.uri().toString());
        this.retryAfter = builder.httpTimeout.multipliedBy(2);
        this.certificateIdentity = builder.certificateIdentity;
        this.certificateScopes = Set.copyOf(builder.certificateScopes);
        this.http = new HttpFetcher(builder.httpTimeout, builder.maxDocumentBytes);
        this.tokenExchange = builder.tokenExchangeEndpoint == null ? builder.tokenExchange
                : new TokenExchangeClient(builder.tokenExchangeEndpoint, builder.tokenExchangeClientId,
                        builder.tokenExchangeClientSecret, http, builder.clock);
        Map<String, TokenVerifier> all = new HashMap<>(builder.verifiers);
        if (all.containsKey(BEARER)) {
            this.jwt = null;
        } else {
            this.jwt = new JwtVerifier(resource, authorizationServers, builder.algorithms, builder.clockSkew,
                    builder.keyCacheTtl, builder.keyRefreshMinInterval, builder.httpTimeout, http);
            Introspection introspection = builder.introspectionEndpoint == null ? null
                    : new Introspection(builder.introspectionEndpoint, builder.introspectionClientId,
                            builder.introspectionClientSecret, resource, authorizationServers, builder.clockSkew,
                            builder.introspectionCacheTtl, builder.cacheSize, http, builder.clock);
            all.put(BEARER, new BearerVerifier(jwt, introspection, builder.verifiedTokenTtl, builder.cacheSize,
                    builder.clock));
        }
        this.verifiers = Map.copyOf(all);
        this.description = "ResourceServer[resource=" + resource + ", authorizationServers=" + authorizationServers
                + ", scopesSupported=" + scopesSupported + ", requiredScopes=" + requiredScopes
                + ", introspection=" + (builder.introspectionEndpoint == null || jwt == null ? "off"
                        : builder.introspectionEndpoint + " as client " + builder.introspectionClientId)
                + ", tokenExchange=" + (builder.tokenExchangeEndpoint != null ? builder.tokenExchangeEndpoint
                        + " as client " + builder.tokenExchangeClientId : tokenExchange == null ? "off" : "custom")
                + ", clientCertificates=" + (certificateIdentity == null ? "off"
                        : certificateIdentity.name().toLowerCase(Locale.ROOT) + " " + certificateScopes)
                + ", schemes=" + new java.util.TreeSet<>(verifiers.keySet()) + "]";
    }

    /**
     * A resource server for {@code resource}, its canonical URI (the MCP endpoint's URL as clients use it, say
     * {@code https://mcp.example.com/mcp}): the audience every token must name.
     */
    public static Builder builder(String resource) {
        return new Builder(Uris.canonicalResource(Objects.requireNonNull(resource, "resource")));
    }

    /** The canonical resource URI tokens must be issued for. */
    public String resource() {
        return resource;
    }

    /** The RFC 9728 document, and where to serve it. */
    public ProtectedResourceMetadata metadata() {
        return metadata;
    }

    /** {@link #authenticate(String, X509Certificate)} for a connection without a client certificate. */
    public AuthOutcome authenticate(String authorization) {
        return authenticate(authorization, null);
    }

    /**
     * Who sent a request, from its {@code Authorization} header, checked against the scopes every request needs; for
     * a request without the header, from its client certificate where {@link Builder#clientCertificates} allows it.
     * May block the first time an issuer's keys are needed, when they rotate, and when an opaque token is
     * introspected and not cached.
     *
     * @param authorization the header's value, or {@code null} when the request has none
     * @param clientCertificate the TLS client certificate of the connection, or {@code null}
     */
    public AuthOutcome authenticate(String authorization, X509Certificate clientCertificate) {
        return authenticate(authorization, clientCertificate, false);
    }

    /**
     * {@link #authenticate(String, X509Certificate)} when its answer needs no blocking: for a request without
     * credentials, with malformed ones, or with a JWT found valid before and still remembered. Empty when the token
     * still has to be verified, which a transport then does off its event loop.
     */
    public Optional<AuthOutcome> authenticateWithoutBlocking(String authorization, X509Certificate clientCertificate) {
        return Optional.ofNullable(authenticate(authorization, clientCertificate, true));
    }

    private AuthOutcome authenticate(String authorization, X509Certificate clientCertificate, boolean cachedOnly) {
        if (authorization == null || authorization.isBlank()) {
            AccessPrincipal certified = certificatePrincipal(clientCertificate);
            return certified == null ? challenges.missing(requiredOrSupported()) : authorize(certified, List.of());
        }
        String header = authorization.strip();
        int space = header.indexOf(' ');
        String scheme = (space < 0 ? header : header.substring(0, space)).toLowerCase(Locale.ROOT);
        TokenVerifier verifier = verifiers.get(scheme);
        if (verifier == null) {
            // RFC 6750 §3.1: a scheme this server does not take is no credentials at all.
            return challenges.missing(requiredOrSupported());
        }
        String credentials = space < 0 ? "" : header.substring(space + 1).stripLeading();
        if (scheme.equals(BEARER) && !isB64Token(credentials)) {
            return challenges.invalidToken("The Authorization header does not hold a bearer token",
                    requiredOrSupported());
        }
        AccessPrincipal principal;
        try {
            if (cachedOnly) {
                principal = verifier instanceof BearerVerifier bearer ? bearer.cached(credentials, clientCertificate)
                        : null;
                if (principal == null) {
                    return null;
                }
            } else {
                principal = verifier.verify(credentials, clientCertificate);
            }
        } catch (InvalidTokenException e) {
            return challenges.invalidToken(e.getMessage(), requiredOrSupported());
        } catch (VerifierUnavailableException e) {
            return new AuthOutcome.Unavailable(retryAfter, e.getMessage());
        }
        return authorize(principal.withToken(credentials), List.of());
    }

    /**
     * Whether {@code principal} may do what needs {@code scopes} (a tool, resource or prompt's own scopes, on top of
     * those every request needs): the principal again, or a 403 {@code insufficient_scope} challenge whose
     * {@code scope} names what to ask for in a step-up, namely the scopes the token already has and those missing,
     * so that the new token loses nothing the client had.
     */
    public AuthOutcome authorize(AccessPrincipal principal, Collection<String> scopes) {
        Objects.requireNonNull(principal, "principal");
        if (principal.hasScopes(requiredScopes) && principal.hasScopes(scopes)) {
            return new AuthOutcome.Authenticated(principal);
        }
        Set<String> ask = new LinkedHashSet<>();
        for (String granted : principal.scopes()) {
            if (scopesSupported.isEmpty() || scopesSupported.contains(granted)) {
                ask.add(granted);
            }
        }
        ask.addAll(requiredScopes);
        ask.addAll(scopes);
        Set<String> missing = new LinkedHashSet<>(requiredScopes);
        missing.addAll(scopes);
        missing.removeAll(principal.scopes());
        return challenges.insufficientScope(ask, "Needs the scope " + String.join(" ", missing));
    }

    /**
     * A 400 {@code invalid_request} challenge when the request's query string carries an {@code access_token}
     * (RFC 6750 §2.3): an MCP server must take tokens from the header only, and a token in a URL ends up in logs.
     *
     * @param rawQuery the request's query string, as received (percent-encoded), or {@code null}
     */
    public Optional<AuthOutcome.Challenge> refuseQueryToken(String rawQuery) {
        if (rawQuery == null || rawQuery.isEmpty()) {
            return Optional.empty();
        }
        for (String parameter : rawQuery.split("&")) {
            int equals = parameter.indexOf('=');
            String name = equals < 0 ? parameter : parameter.substring(0, equals);
            if (name.equals("access_token") || (name.indexOf('%') >= 0 && decodes(name).equals("access_token"))) {
                return Optional.of(challenges.invalidRequest("Access tokens are accepted in the Authorization "
                        + "header only"));
            }
        }
        return Optional.empty();
    }

    /**
     * A token for a downstream service on behalf of {@code principal}, through the configured {@link TokenExchange}.
     * The caller's own token goes to the authorization server only, never downstream.
     *
     * @throws IllegalStateException when no exchange is configured, or the principal did not come from this server
     * @throws IllegalArgumentException when {@code audience} is this resource (that would pass the token through)
     */
    public TokenExchange.DownstreamToken exchange(AccessPrincipal principal, URI audience, Set<String> scopes) {
        Objects.requireNonNull(principal, "principal");
        Objects.requireNonNull(audience, "audience");
        if (tokenExchange == null) {
            throw new IllegalStateException("no token exchange configured (ResourceServer.Builder.tokenExchange)");
        }
        if (principal.token() == null) {
            throw new IllegalStateException("principal " + principal.name()
                    + " holds no token of this server to exchange");
        }
        if (resource.equals(audience.toString())) {
            throw new IllegalArgumentException("audience: " + audience + " (expected: another service than "
                    + resource + ")");
        }
        TokenExchange.DownstreamToken token = tokenExchange.exchange(principal.token(), principal, audience,
                Set.copyOf(scopes));
        if (token.accessToken().equals(principal.token())) {
            throw new IllegalStateException("the token exchange returned the inbound token (no passthrough)");
        }
        return token;
    }

    /** The settings, for logs and start-up lines: endpoints and client ids, never a secret. */
    @Override
    public String toString() {
        return description;
    }

    @Override
    public void close() {
        if (jwt != null) {
            jwt.close();
        }
        http.close();
    }

    /** The principal a client certificate names, or {@code null} when certificates are no identity here. */
    private AccessPrincipal certificatePrincipal(X509Certificate certificate) {
        if (certificateIdentity == null || certificate == null) {
            return null;
        }
        String subject = certificateIdentity.of(certificate);
        if (subject == null) {
            return null;
        }
        String issuer = certificate.getIssuerX500Principal().getName(javax.security.auth.x500.X500Principal.RFC2253);
        return AccessPrincipal.of(issuer, subject, null, certificateScopes, Map.of("iss", issuer, "sub", subject),
                certificate.getNotAfter().toInstant());
    }

    private List<String> requiredOrSupported() {
        return requiredScopes.isEmpty() ? scopesSupported : requiredScopes;
    }

    /** RFC 6750 §2.1: {@code b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="}. */
    static boolean isB64Token(String token) {
        int i = 0;
        int n = token.length();
        while (i < n && isB64Char(token.charAt(i))) {
            i++;
        }
        if (i == 0) {
            return false;
        }
        while (i < n && token.charAt(i) == '=') {
            i++;
        }
        return i == n;
    }

    private static boolean isB64Char(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                || c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/';
    }

    private static String decodes(String name) {
        try {
            return URLDecoder.decode(name, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return name;
        }
    }

    /**
     * The built-in Bearer verifier: JWTs checked locally, other tokens introspected where introspection is set up.
     * JWTs found valid are remembered (by their text, until they expire or the cache time ends), so that a client
     * sending the same token on every call pays for the signature check once.
     */
    static final class BearerVerifier implements TokenVerifier {
        private final JwtVerifier jwt;
        private final Introspection introspection;
        private final Clock clock;
        private final Cache<String, AccessPrincipal> verified;

        BearerVerifier(JwtVerifier jwt, Introspection introspection, Duration verifiedTtl, long cacheSize,
                Clock clock) {
            this.jwt = jwt;
            this.introspection = introspection;
            this.clock = clock;
            this.verified = verifiedTtl.isZero() ? null : Caffeine.newBuilder()
                    .maximumSize(cacheSize)
                    .expireAfter(Expiry.<String, AccessPrincipal>creating((token, principal) -> {
                        if (principal.expiresAt() == null) {
                            return verifiedTtl;
                        }
                        Duration left = Duration.between(clock.instant(), principal.expiresAt());
                        return left.isNegative() ? Duration.ZERO : (left.compareTo(verifiedTtl) < 0 ? left
                                : verifiedTtl);
                    }))
                    .build();
        }

        @Override
        public AccessPrincipal verify(String token, X509Certificate clientCertificate) {
            if (!JwtVerifier.looksLikeJwt(token)) {
                if (introspection == null) {
                    throw new InvalidTokenException("The access token is not a JWT");
                }
                return introspection.verify(token, clientCertificate);
            }
            // The binding belongs to the connection, not the token, so a remembered token is checked again.
            AccessPrincipal principal = cached(token, clientCertificate);
            if (principal != null) {
                return principal;
            }
            principal = jwt.verify(token, clientCertificate);
            if (verified != null && notBeforePassed(principal)) {
                verified.put(token, principal);
            }
            return principal;
        }

        /** The principal of a JWT verified before and still remembered, or {@code null}. */
        AccessPrincipal cached(String token, X509Certificate clientCertificate) {
            AccessPrincipal principal = verified == null ? null : verified.getIfPresent(token);
            if (principal == null || principal.expiresAt() != null
                    && !clock.instant().isBefore(principal.expiresAt())) {
                return null;
            }
            CertificateBinding.check(principal.claims().get("cnf"), clientCertificate);
            return principal;
        }

        private boolean notBeforePassed(AccessPrincipal principal) {
            return !(principal.claims().get("nbf") instanceof Number nbf)
                    || !Instant.ofEpochSecond(nbf.longValue()).isAfter(clock.instant());
        }
    }

    /** The resource server's settings, with their defaults. */
    public static final class Builder {
        private static final Set<JWSAlgorithm> DEFAULT_ALGORITHMS = Set.of(
                JWSAlgorithm.RS256, JWSAlgorithm.RS384, JWSAlgorithm.RS512,
                JWSAlgorithm.PS256, JWSAlgorithm.PS384, JWSAlgorithm.PS512,
                JWSAlgorithm.ES256, JWSAlgorithm.ES384, JWSAlgorithm.ES512);

        private final String resource;
        private final List<String> authorizationServers = new ArrayList<>();
        private final List<String> scopesSupported = new ArrayList<>();
        private final List<String> requiredScopes = new ArrayList<>();
        private final Map<String, TokenVerifier> verifiers = new HashMap<>();
        private Set<JWSAlgorithm> algorithms = DEFAULT_ALGORITHMS;
        private Duration clockSkew = Duration.ofSeconds(60);
        private Duration keyCacheTtl = Duration.ofMinutes(5);
        private Duration keyRefreshMinInterval = Duration.ofSeconds(30);
        private Duration httpTimeout = Duration.ofSeconds(5);
        private int maxDocumentBytes = 256 * 1024;
        private Duration verifiedTokenTtl = Duration.ofMinutes(5);
        private Duration introspectionCacheTtl = Duration.ofSeconds(30);
        private long cacheSize = 10_000;
        private URI introspectionEndpoint;
        private String introspectionClientId;
        private String introspectionClientSecret;
        private TokenExchange tokenExchange;
        private URI tokenExchangeEndpoint;
        private String tokenExchangeClientId;
        private String tokenExchangeClientSecret;
        private CertificateIdentity certificateIdentity;
        private Set<String> certificateScopes = Set.of();
        private Clock clock = Clock.systemUTC();

        private Builder(String resource) {
            this.resource = resource;
        }

        /**
         * An authorization server whose tokens are accepted, by its issuer identifier (the {@code iss} of its tokens):
         * listed in the metadata, and its signing keys found through its RFC 8414 or OpenID metadata. At least one.
         */
        public Builder authorizationServer(String issuer) {
            Uris.secure("issuer", issuer);
            authorizationServers.add(issuer);
            return this;
        }

        /** The scopes this resource knows, listed in its metadata. */
        public Builder scopesSupported(String... scopes) {
            for (String scope : scopes) {
                scopesSupported.add(scope(scope));
            }
            return this;
        }

        /**
         * The scopes every request needs (a token without them gets 403); also what a 401 tells the client to ask
         * for. Without any, a 401 names the supported scopes.
         */
        public Builder requiredScopes(String... scopes) {
            for (String scope : scopes) {
                requiredScopes.add(scope(scope));
            }
            return this;
        }

        /**
         * The JWS algorithms accepted (by default all of RSA and ECDSA: RS, PS and ES 256/384/512). Only asymmetric
         * ones: {@code none} and HMAC are refused, since a public key must never serve as a shared secret.
         */
        public Builder algorithms(String... names) {
            Set<JWSAlgorithm> chosen = new java.util.HashSet<>();
            for (String name : names) {
                JWSAlgorithm algorithm = JWSAlgorithm.parse(name);
                if (!JWSAlgorithm.Family.RSA.contains(algorithm) && !JWSAlgorithm.Family.EC.contains(algorithm)) {
                    throw new IllegalArgumentException("algorithm: " + name
                            + " (expected: an RSA or ECDSA JWS algorithm such as RS256, PS256, ES256)");
                }
                chosen.add(algorithm);
            }
            if (chosen.isEmpty()) {
                throw new IllegalArgumentException("algorithms: none given (expected: at least one)");
            }
            this.algorithms = Set.copyOf(chosen);
            return this;
        }

        /** How far apart the two servers' clocks may be for {@code exp} and {@code nbf}: 60 s by default. */
        public Builder clockSkew(Duration clockSkew) {
            this.clockSkew = nonNegative("clockSkew", clockSkew);
            return this;
        }

        /** How long an issuer's keys are used before they are fetched again: 5 minutes by default. */
        public Builder keyCacheTtl(Duration ttl) {
            this.keyCacheTtl = positive("keyCacheTtl", ttl);
            return this;
        }

        /**
         * The least time between two fetches of an issuer's keys (a token with an unknown key id asks for one): 30 s
         * by default, so that tokens with made-up key ids cannot turn into a flood of requests to the issuer.
         */
        public Builder keyRefreshMinInterval(Duration interval) {
            this.keyRefreshMinInterval = positive("keyRefreshMinInterval", interval);
            return this;
        }

        /** The connect and response timeout of each request to an authorization server: 5 s by default. */
        public Builder httpTimeout(Duration timeout) {
            this.httpTimeout = positive("httpTimeout", timeout);
            return this;
        }

        /**
         * How long a JWT found valid is remembered (never past its {@code exp}): 5 minutes by default; zero checks
         * the signature on every request.
         */
        public Builder verifiedTokenTtl(Duration ttl) {
            this.verifiedTokenTtl = nonNegative("verifiedTokenTtl", ttl);
            return this;
        }

        /**
         * Opaque tokens are checked by RFC 7662 introspection at {@code endpoint}, authenticating with this
         * resource server's client credentials (HTTP Basic). An active answer must name this resource in its
         * {@code aud} (RFC 8707), and its {@code iss}, where it has one, must be a configured authorization server.
         */
        public Builder introspection(String endpoint, String clientId, String clientSecret) {
            this.introspectionEndpoint = Uris.secure("introspection endpoint", endpoint);
            this.introspectionClientId = Objects.requireNonNull(clientId, "clientId");
            this.introspectionClientSecret = Objects.requireNonNull(clientSecret, "clientSecret");
            return this;
        }

        /**
         * How long an introspection answer is kept (never past the token's {@code exp}): 30 s by default, which is
         * also how long a revoked token may still be accepted; zero asks on every request.
         */
        public Builder introspectionCacheTtl(Duration ttl) {
            this.introspectionCacheTtl = nonNegative("introspectionCacheTtl", ttl);
            return this;
        }

        /** How many verified tokens and introspection answers are kept, each: 10,000 by default. */
        public Builder cacheSize(long size) {
            if (size < 1) {
                throw new IllegalArgumentException("cacheSize: " + size + " (expected: >= 1)");
            }
            this.cacheSize = size;
            return this;
        }

        /**
         * The verifier for an {@code Authorization} scheme: another scheme, or {@code Bearer} to replace the built-in
         * JWT and introspection checks.
         */
        public Builder verifier(String scheme, TokenVerifier verifier) {
            Objects.requireNonNull(verifier, "verifier");
            if (scheme == null || scheme.isEmpty() || !isB64Token(scheme) || scheme.indexOf('=') >= 0) {
                throw new IllegalArgumentException("scheme: " + scheme + " (expected: an HTTP auth-scheme token)");
            }
            verifiers.put(scheme.toLowerCase(Locale.ROOT), verifier);
            return this;
        }

        /** How handlers get tokens for downstream services ({@link ResourceServer#exchange}). */
        public Builder tokenExchange(TokenExchange exchange) {
            this.tokenExchange = Objects.requireNonNull(exchange, "exchange");
            this.tokenExchangeEndpoint = null;
            return this;
        }

        /**
         * Handlers get tokens for downstream services by RFC 8693 token exchange at the authorization server's
         * token {@code endpoint}: the caller's token is the subject token, the downstream service's URI the
         * {@code audience}, and this resource server authenticates with its client credentials (HTTP Basic).
         */
        public Builder tokenExchange(String endpoint, String clientId, String clientSecret) {
            this.tokenExchangeEndpoint = Uris.secure("token exchange endpoint", endpoint);
            this.tokenExchangeClientId = Objects.requireNonNull(clientId, "clientId");
            this.tokenExchangeClientSecret = Objects.requireNonNull(clientSecret, "clientSecret");
            this.tokenExchange = null;
            return this;
        }

        /**
         * A request without an {@code Authorization} header whose connection presented a verified TLS client
         * certificate (mutual TLS) is the principal the certificate names by {@code identity}, granted
         * {@code scopes} (default: off, such a request gets 401). The principal's issuer is the certificate's
         * issuer, its subject the chosen name; a certificate without that name is no credential. A request with a
         * token is judged by its token alone, and a certificate principal has no token to exchange downstream.
         */
        public Builder clientCertificates(CertificateIdentity identity, String... scopes) {
            this.certificateIdentity = Objects.requireNonNull(identity, "identity");
            Set<String> checked = new LinkedHashSet<>();
            for (String scope : scopes) {
                checked.add(scope(scope));
            }
            this.certificateScopes = checked;
            return this;
        }

        /** The clock token lifetimes are judged by in the caches and introspection (for tests). */
        Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        public ResourceServer build() {
            if (keyRefreshMinInterval.compareTo(keyCacheTtl) >= 0) {
                throw new IllegalStateException("keyRefreshMinInterval: " + keyRefreshMinInterval
                        + " (expected: < keyCacheTtl " + keyCacheTtl + ")");
            }
            if (authorizationServers.isEmpty()) {
                throw new IllegalStateException("authorizationServer: none given (expected: at least one; RFC 9728 "
                        + "metadata must name one)");
            }
            return new ResourceServer(this);
        }

        /** RFC 6749 §3.3: {@code scope-token = 1*( %x21 / %x23-5B / %x5D-7E )}. */
        private static String scope(String scope) {
            boolean valid = scope != null && !scope.isEmpty();
            for (int i = 0; valid && i < scope.length(); i++) {
                char c = scope.charAt(i);
                valid = c == 0x21 || (c >= 0x23 && c <= 0x5B) || (c >= 0x5D && c <= 0x7E);
            }
            if (!valid) {
                throw new IllegalArgumentException("scope: " + scope
                        + " (expected: printable ASCII without space, quote or backslash)");
            }
            return scope;
        }

        private static Duration positive(String name, Duration value) {
            if (value == null || value.isNegative() || value.isZero()) {
                throw new IllegalArgumentException(name + ": " + value + " (expected: > 0)");
            }
            return value;
        }

        private static Duration nonNegative(String name, Duration value) {
            if (value == null || value.isNegative()) {
                throw new IllegalArgumentException(name + ": " + value + " (expected: >= 0)");
            }
            return value;
        }
    }
}
