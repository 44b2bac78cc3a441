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
    private final Set<String> origins;

    HostCheck(Set<String> hosts, Set<String> origins) {
        this.hosts = hosts;
        this.origins = origins;
    }

    boolean hostAllowed(String hostHeader) {
        if (hostHeader == null || hostHeader.isEmpty()) {
            return false;
        }
        return hosts.contains(hostName(hostHeader));
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
