package dev.tern.auth;

import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URI;
import java.text.ParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.nimbusds.jose.KeySourceException;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.source.JWKSetCacheRefreshEvaluator;
import com.nimbusds.jose.jwk.source.JWKSetSource;
import com.nimbusds.jose.jwk.source.URLBasedJWKSetSource;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jose.util.JSONObjectUtils;

/**
 * An authorization server's signing keys, found through its metadata: the {@code jwks_uri} of its RFC 8414 document,
 * or of its OpenID configuration. The metadata is read on first use (and again until it is found), so that a
 * resource server starts while its authorization server is still down. Caching, refresh on an unknown key id and
 * its rate limit are Nimbus's, wrapped around this source.
 */
final class IssuerKeys implements JWKSetSource<SecurityContext> {
    private final String issuer;
    private final HttpFetcher http;
    private volatile JWKSetSource<SecurityContext> keys;
    private volatile boolean loaded;

    IssuerKeys(String issuer, HttpFetcher http) {
        this.issuer = issuer;
        this.http = http;
    }

    @Override
    public JWKSet getJWKSet(JWKSetCacheRefreshEvaluator refreshEvaluator, long currentTime, SecurityContext context)
            throws KeySourceException {
        JWKSet set = source().getJWKSet(refreshEvaluator, currentTime, context);
        loaded = true;
        return set;
    }

    /** Whether the keys were ever fetched: until then, a fetch held back by the rate limit is an outage. */
    boolean loaded() {
        return loaded;
    }

    private JWKSetSource<SecurityContext> source() throws KeySourceException {
        JWKSetSource<SecurityContext> found = keys;
        if (found == null) {
            synchronized (this) {
                found = keys;
                if (found == null) {
                    try {
                        found = new URLBasedJWKSetSource<>(discoverJwksUri().toURL(), http);
                    } catch (MalformedURLException e) {
                        throw new KeySourceException("jwks_uri of " + issuer + ": " + e.getMessage(), e);
                    }
                    keys = found;
                }
            }
        }
        return found;
    }

    /** The metadata locations the MCP authorization spec lists, in its order (RFC 8414 §3.1 and §5). */
    static List<URI> metadataLocations(String issuer) {
        URI uri = URI.create(issuer);
        String path = uri.getRawPath() == null || uri.getRawPath().equals("/") ? "" : uri.getRawPath();
        if (path.endsWith("/")) {
            path = path.substring(0, path.length() - 1);
        }
        String origin = uri.getScheme() + "://" + uri.getRawAuthority();
        List<URI> locations = new ArrayList<>(3);
        locations.add(URI.create(origin + "/.well-known/oauth-authorization-server" + path));
        locations.add(URI.create(origin + "/.well-known/openid-configuration" + path));
        if (!path.isEmpty()) {
            locations.add(URI.create(origin + path + "/.well-known/openid-configuration"));
        }
        return locations;
    }

    private URI discoverJwksUri() throws KeySourceException {
        List<String> failures = new ArrayList<>();
        for (URI location : metadataLocations(issuer)) {
            HttpFetcher.Response response;
            try {
                response = http.get(location);
            } catch (IOException e) {
                failures.add(location + ": " + e.getMessage());
                continue;
            }
            if (response.status() != 200) {
                failures.add(location + ": HTTP " + response.status());
                continue;
            }
            Map<String, Object> metadata;
            try {
                metadata = JSONObjectUtils.parse(response.body());
            } catch (ParseException e) {
                failures.add(location + ": not a JSON object");
                continue;
            }
            // RFC 8414 §3.3: a document naming another issuer must not be used, or one server could speak for another.
            if (!issuer.equals(metadata.get("issuer"))) {
                failures.add(location + ": issuer " + metadata.get("issuer") + " (expected: " + issuer + ")");
                continue;
            }
            if (!(metadata.get("jwks_uri") instanceof String jwksUri)) {
                failures.add(location + ": no jwks_uri");
                continue;
            }
            try {
                return Uris.secure("jwks_uri", jwksUri);
            } catch (IllegalArgumentException e) {
                failures.add(location + ": " + e.getMessage());
            }
        }
        throw new KeySourceException("no usable metadata for " + issuer + ": " + String.join("; ", failures));
    }

    @Override
    public void close() throws IOException {
        JWKSetSource<SecurityContext> found = keys;
        if (found != null) {
            found.close();
        }
    }
}
