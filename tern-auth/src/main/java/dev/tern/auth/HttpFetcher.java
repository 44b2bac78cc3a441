package dev.tern.auth;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import com.nimbusds.jose.util.Resource;
import com.nimbusds.jose.util.ResourceRetriever;

/**
 * Fetches the authorization server's documents (metadata, keys, introspection answers) with the JDK's HTTP client,
 * with timeouts, a size limit and no redirects, so that a slow or hostile server cannot hold or flood the resource
 * server.
 */
final class HttpFetcher implements ResourceRetriever, AutoCloseable {
    record Response(int status, String body) {
    }

    private final HttpClient client;
    private final Duration timeout;
    private final int maxBytes;

    HttpFetcher(Duration timeout, int maxBytes) {
        this.timeout = timeout;
        this.maxBytes = maxBytes;
        this.client = HttpClient.newBuilder()
                .connectTimeout(timeout)
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
    }

    Response get(URI uri) throws IOException {
        return send(HttpRequest.newBuilder(uri).timeout(timeout).header("Accept", "application/json").GET().build());
    }

    Response postForm(URI uri, String form, String authorization) throws IOException {
        return send(HttpRequest.newBuilder(uri)
                .timeout(timeout)
                .header("Accept", "application/json")
                .header("Content-Type", "application/x-www-form-urlencoded")
                .header("Authorization", authorization)
                .POST(HttpRequest.BodyPublishers.ofString(form, StandardCharsets.UTF_8))
                .build());
    }

    /**
     * The HTTP Basic credentials of an OAuth client: RFC 6749 §2.3.1 form-encodes the id and secret before they are
     * joined and base64-encoded.
     */
    static String basic(String clientId, String clientSecret) {
        String joined = java.net.URLEncoder.encode(clientId, StandardCharsets.UTF_8) + ":"
                + java.net.URLEncoder.encode(clientSecret, StandardCharsets.UTF_8);
        return "Basic " + java.util.Base64.getEncoder().encodeToString(joined.getBytes(StandardCharsets.UTF_8));
    }

    /** For Nimbus's JWK set source: the key set at {@code url}, or an {@link IOException} for anything but 200. */
    @Override
    public Resource retrieveResource(URL url) throws IOException {
        URI uri;
        try {
            uri = url.toURI();
        } catch (URISyntaxException e) {
            throw new IOException("not a URI: " + url, e);
        }
        Response response = get(uri);
        if (response.status() != 200) {
            throw new IOException("GET " + uri + ": HTTP " + response.status());
        }
        return new Resource(response.body(), "application/json");
    }

    private Response send(HttpRequest request) throws IOException {
        HttpResponse<InputStream> response;
        try {
            response = client.send(request, HttpResponse.BodyHandlers.ofInputStream());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted: " + request.method() + " " + request.uri(), e);
        }
        try (InputStream body = response.body()) {
            byte[] bytes = body.readNBytes(maxBytes + 1);
            if (bytes.length > maxBytes) {
                throw new IOException(request.method() + " " + request.uri() + ": body over " + maxBytes + " bytes");
            }
            return new Response(response.statusCode(), new String(bytes, StandardCharsets.UTF_8));
        }
    }

    @Override
    public void close() {
        client.close();
    }
}
