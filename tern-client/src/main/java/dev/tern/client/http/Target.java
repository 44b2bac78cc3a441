package dev.tern.client.http;

import java.net.URI;

/** Where requests go: the authority to name and the base path calls are relative to. */
record Target(String scheme, String host, int port, String authority, String basePath) {

    static Target of(URI uri) {
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(java.util.Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw new IllegalArgumentException("uri: " + uri + " (expected: an http or https URI)");
        }
        String host = uri.getHost();
        if (host == null) {
            throw new IllegalArgumentException("uri: " + uri + " (expected: a host)");
        }
        boolean tls = scheme.equals("https");
        int port = uri.getPort() >= 0 ? uri.getPort() : tls ? 443 : 80;
        String rawPath = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
        String base = uri.getRawQuery() == null ? rawPath : rawPath + "?" + uri.getRawQuery();
        String bracketed = host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
        return new Target(scheme, host.startsWith("[") ? host.substring(1, host.length() - 1) : host, port,
                bracketed + ":" + port, base);
    }

    boolean tls() {
        return scheme.equals("https");
    }

    String path(String callPath) {
        if (callPath == null || callPath.isEmpty()) {
            return basePath;
        }
        return callPath.charAt(0) == '/' ? callPath : "/" + callPath;
    }
}
