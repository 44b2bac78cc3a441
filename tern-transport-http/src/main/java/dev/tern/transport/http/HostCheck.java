package dev.tern.transport.http;

import java.net.URI;
import java.util.Locale;
import java.util.Set;

/**
 * Host and Origin checks against DNS rebinding and cross-site requests: a request is served only when its Host names
 * an allowed host (loopback names by default) and its Origin, if any, is an allowed origin or an http(s) origin on an
 * allowed host.
 */
final class HostCheck {
    static final Set<String> LOOPBACK = Set.of("localhost", "127.0.0.1", "[::1]", "::1");

    private final Set<String> hosts;
    /** The allowed names that the per-request fast path compares in place: those not in brackets. */
    private final String[] plainHosts;
    private final Set<String> origins;

    HostCheck(Set<String> hosts, Set<String> origins) {
        this.hosts = hosts;
        this.plainHosts = hosts.stream().filter(h -> !h.startsWith("[")).toArray(String[]::new);
        this.origins = origins;
    }

    boolean hostAllowed(String hostHeader) {
        if (hostHeader == null || hostHeader.isEmpty()) {
            return false;
        }
        for (String host : plainHosts) {
            if (namesWithPort(hostHeader, host)) {
                return true;
            }
        }
        return hosts.contains(hostName(hostHeader));
    }

    /**
     * Whether a Host header is {@code host} or {@code host:port} as {@link #hostName} reads it, compared in place:
     * the common case needs no lower-case copy and no substring for each request.
     */
    private static boolean namesWithPort(String hostHeader, String host) {
        int length = host.length();
        if (hostHeader.length() < length) {
            return false;
        }
        int colon = hostHeader.lastIndexOf(':');
        if (colon >= 0 ? colon != length : hostHeader.length() != length) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            char c = hostHeader.charAt(i);
            if ((c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c) != host.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    boolean originAllowed(String origin) {
        if (origin == null) {
            return true;
        }
        if (origins.contains(origin)) {
            return true;
        }
        try {
            URI uri = URI.create(origin);
            String scheme = uri.getScheme();
            if (scheme == null || !(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null) {
                return false;
            }
            return hosts.contains(uri.getHost().toLowerCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    static String hostName(String hostHeader) {
        String h = hostHeader.trim().toLowerCase(Locale.ROOT);
        if (h.startsWith("[")) {
            int end = h.indexOf(']');
            return end < 0 ? h : h.substring(0, end + 1);
        }
        int colon = h.lastIndexOf(':');
        return colon < 0 ? h : h.substring(0, colon);
    }
}
