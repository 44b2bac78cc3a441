package dev.tern.auth;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** How the claims both token kinds share are read: scopes and the client. */
final class Claims {
    private Claims() {
    }

    /** {@code scope} as a space-separated string (RFC 9068, RFC 7662), or {@code scp} as a list or string. */
    static Set<String> scopes(Map<String, Object> claims) {
        Set<String> scopes = new LinkedHashSet<>();
        addScopes(scopes, claims.get("scope"));
        addScopes(scopes, claims.get("scp"));
        return scopes;
    }

    private static void addScopes(Set<String> into, Object value) {
        if (value instanceof String s) {
            for (String scope : s.split(" ")) {
                if (!scope.isEmpty()) {
                    into.add(scope);
                }
            }
        } else if (value instanceof List<?> list) {
            for (Object scope : list) {
                if (scope instanceof String s && !s.isEmpty()) {
                    into.add(s);
                }
            }
        }
    }

    /** {@code client_id} (RFC 9068, RFC 7662), else {@code azp} (OpenID), else {@code null}. */
    static String clientId(Map<String, Object> claims) {
        if (claims.get("client_id") instanceof String id) {
            return id;
        }
        return claims.get("azp") instanceof String azp ? azp : null;
    }
}
