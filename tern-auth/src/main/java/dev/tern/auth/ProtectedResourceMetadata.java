package dev.tern.auth;

import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.nimbusds.jose.util.JSONObjectUtils;

/**
 * The resource's RFC 9728 metadata document: which resource this is, which authorization servers issue tokens for
 * it, which scopes it knows, and that tokens come only in the {@code Authorization} header. Built once; served
 * without authentication at every one of {@link #paths()}.
 */
public final class ProtectedResourceMetadata {
    /** RFC 9728 §3: the well-known suffix, inserted between the host and the resource's path. */
    public static final String WELL_KNOWN = "/.well-known/oauth-protected-resource";
    /** The media type to serve the document with. */
    public static final String CONTENT_TYPE = "application/json";

    private final URI uri;
    private final List<String> paths;
    private final byte[] json;

    ProtectedResourceMetadata(String resource, List<String> authorizationServers, List<String> scopesSupported) {
        URI resourceUri = URI.create(resource);
        String path = resourceUri.getRawPath() == null || resourceUri.getRawPath().equals("/")
                ? "" : resourceUri.getRawPath();
        this.uri = URI.create(resourceUri.getScheme() + "://" + resourceUri.getRawAuthority() + WELL_KNOWN + path);
        // The path-inserted form first: it is where RFC 9728 puts it and where MCP clients look first.
        this.paths = path.isEmpty() ? List.of(WELL_KNOWN) : List.of(WELL_KNOWN + path, WELL_KNOWN);
        Map<String, Object> document = new LinkedHashMap<>();
        document.put("resource", resource);
        document.put("authorization_servers", authorizationServers);
        if (!scopesSupported.isEmpty()) {
            document.put("scopes_supported", scopesSupported);
        }
        document.put("bearer_methods_supported", List.of("header"));
        this.json = JSONObjectUtils.toJSONString(document).getBytes(StandardCharsets.UTF_8);
    }

    /** Where the document is: the value of {@code resource_metadata} in every challenge. */
    public URI uri() {
        return uri;
    }

    /**
     * The request paths to serve the document at: the path-inserted form for the resource's path (for
     * {@code https://host/mcp}, {@code /.well-known/oauth-protected-resource/mcp}) and the root form.
     */
    public List<String> paths() {
        return paths;
    }

    /** The document as UTF-8 JSON, read-only. */
    public ByteBuffer json() {
        return ByteBuffer.wrap(json).asReadOnlyBuffer();
    }

    @Override
    public String toString() {
        return new String(json, StandardCharsets.UTF_8);
    }
}
