package dev.tern.auth;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.text.ParseException;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.Set;

import com.nimbusds.jose.util.JSONObjectUtils;

/**
 * RFC 8693 token exchange at the authorization server's token endpoint: the caller's token goes in as the subject
 * token, the downstream service's URI as the {@code audience}, and the resource server authenticates with its own
 * client credentials (HTTP Basic).
 */
final class TokenExchangeClient implements TokenExchange {
    static final String GRANT_TYPE = "urn:ietf:params:oauth:grant-type:token-exchange";
    static final String ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token";

    private final URI endpoint;
    private final String authorization;
    private final HttpFetcher http;
    private final Clock clock;

    TokenExchangeClient(URI endpoint, String clientId, String clientSecret, HttpFetcher http, Clock clock) {
        this.endpoint = endpoint;
        this.authorization = HttpFetcher.basic(clientId, clientSecret);
        this.http = http;
        this.clock = clock;
    }

    @Override
    public DownstreamToken exchange(String subjectToken, AccessPrincipal principal, URI audience, Set<String> scopes) {
        StringBuilder form = new StringBuilder(256 + subjectToken.length())
                .append("grant_type=").append(form(GRANT_TYPE))
                .append("&subject_token=").append(form(subjectToken))
                .append("&subject_token_type=").append(form(ACCESS_TOKEN_TYPE))
                .append("&requested_token_type=").append(form(ACCESS_TOKEN_TYPE))
                .append("&audience=").append(form(audience.toString()));
        if (!scopes.isEmpty()) {
            form.append("&scope=").append(form(String.join(" ", scopes)));
        }
        HttpFetcher.Response response;
        try {
            response = http.postForm(endpoint, form.toString(), authorization);
        } catch (IOException e) {
            throw new VerifierUnavailableException("token exchange at " + endpoint + ": " + e.getMessage(), e);
        }
        Map<String, Object> answer;
        try {
            answer = JSONObjectUtils.parse(response.body());
        } catch (ParseException e) {
            answer = Map.of();
        }
        if (response.status() >= 500) {
            throw new VerifierUnavailableException("token exchange at " + endpoint + ": HTTP " + response.status());
        }
        if (response.status() != 200 || !(answer.get("access_token") instanceof String token) || token.isEmpty()) {
            throw new IllegalStateException("token exchange at " + endpoint + " refused: HTTP " + response.status()
                    + (answer.get("error") instanceof String error ? " " + error : ""));
        }
        String type = answer.get("token_type") instanceof String t ? t : "Bearer";
        Instant expiresAt = answer.get("expires_in") instanceof Number seconds
                ? clock.instant().plusSeconds(seconds.longValue()) : null;
        return new DownstreamToken(token, type, expiresAt);
    }

    private static String form(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
