package dev.tern.auth;

import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;

/** The rules every URI the resource server is configured with or discovers must follow. */
final class Uris {
    private Uris() {
    }

    /**
     * {@code value} as an absolute https URI without a fragment; http only on a loopback host, where no network
     * lies between the two servers.
     */
    static URI secure(String name, String value) {
        URI uri;
        try {
            uri = new URI(value);
        } catch (URISyntaxException | NullPointerException e) {
            throw new IllegalArgumentException(name + ": " + value + " (expected: an absolute https URI)");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        boolean https = scheme.equals("https");
        boolean loopbackHttp = scheme.equals("http") && isLoopback(uri.getHost());
        if (!(https || loopbackHttp) || uri.getHost() == null || uri.getRawFragment() != null) {
            throw new IllegalArgumentException(name + ": " + value
                    + " (expected: an absolute https URI without fragment, or http on a loopback host)");
        }
        return uri;
    }

    /** The canonical form of a resource URI (RFC 8707, MCP): lower-case scheme and host, no fragment. */
    static String canonicalResource(String value) {
        URI uri = secure("resource", value);
        try {
            return new URI(uri.getScheme().toLowerCase(Locale.ROOT), uri.getRawUserInfo(),
                    uri.getHost().toLowerCase(Locale.ROOT), uri.getPort(), uri.getPath(), uri.getQuery(), null)
                    .toString();
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("resource: " + value + " (expected: an absolute https URI)", e);
        }
    }

    private static boolean isLoopback(String host) {
        if (host == null) {
            return false;
        }
        if (host.equalsIgnoreCase("localhost")) {
            return true;
        }
        String literal = host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
        if (!literal.matches("[0-9.]+|[0-9a-fA-F:]+")) {
            return false; // a name other than localhost would need a DNS lookup to judge
        }
        try {
            return InetAddress.getByName(literal).isLoopbackAddress();
        } catch (java.net.UnknownHostException e) {
            return false;
        }
    }
}
