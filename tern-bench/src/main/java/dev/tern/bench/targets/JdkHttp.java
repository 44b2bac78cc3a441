package dev.tern.bench.targets;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

import dev.tern.bench.Outcome;
import dev.tern.bench.ServerTiming;

/**
 * HTTP requests over the JDK's {@link HttpClient}, timed: when the request was handed over and when the reply's head
 * arrived. (The JDK client does not report connect or TLS handshake times.)
 */
final class JdkHttp implements AutoCloseable {
    final HttpClient client;
    final HttpVersion version;
    final Duration timeout;

    /** A reply with its timings. */
    record Reply(int status, String contentType, String body, long sentNanos, long headNanos,
            ServerTiming serverTiming, java.net.http.HttpHeaders headers) {

        Outcome withTimings(Outcome o) {
            return o.withTimings(sentNanos, headNanos, serverTiming);
        }
    }

    JdkHttp(HttpVersion version, boolean insecure, Duration timeout) {
        this.version = version;
        this.timeout = timeout;
        HttpClient.Builder b = HttpClient.newBuilder()
                .version(version == HttpVersion.HTTP_1_1 ? HttpClient.Version.HTTP_1_1 : HttpClient.Version.HTTP_2)
                .connectTimeout(Duration.ofSeconds(10))
                .followRedirects(HttpClient.Redirect.NEVER);
        if (insecure) {
            // Hostname checks of the JDK client can only be turned off process-wide, before its first use.
            System.setProperty("jdk.internal.httpclient.disableHostnameVerification", "true");
            b.sslContext(trustingEveryone());
        }
        this.client = b.build();
    }

    CompletableFuture<Reply> send(HttpRequest request) {
        long sent = System.nanoTime();
        return client.sendAsync(request, info -> {
            long head = System.nanoTime();
            return HttpResponse.BodySubscribers.mapping(HttpResponse.BodySubscribers.ofString(
                    java.nio.charset.StandardCharsets.UTF_8), body -> new Reply(info.statusCode(),
                    info.headers().firstValue("content-type").orElse(""), body, sent, head,
                    ServerTiming.parse(String.join(",", info.headers().allValues("server-timing"))),
                    info.headers()));
        }).thenApply(HttpResponse::body);
    }

    HttpRequest.Builder request(URI uri) {
        return HttpRequest.newBuilder(uri).timeout(timeout);
    }

    /**
     * For h2c, upgrades the connection with a body-less request first (the JDK client upgrades only those); for h2,
     * negotiates by ALPN. Any status will do.
     */
    void prime(URI uri) throws Exception {
        if (version != HttpVersion.HTTP_1_1) {
            client.send(request(uri).GET().build(), HttpResponse.BodyHandlers.discarding());
        }
    }

    private static SSLContext trustingEveryone() {
        try {
            SSLContext ssl = SSLContext.getInstance("TLS");
            ssl.init(null, new TrustManager[] {new X509TrustManager() {
                @Override
                public void checkClientTrusted(X509Certificate[] chain, String authType) {
                }

                @Override
                public void checkServerTrusted(X509Certificate[] chain, String authType) {
                }

                @Override
                public X509Certificate[] getAcceptedIssuers() {
                    return new X509Certificate[0];
                }
            }}, new SecureRandom());
            return ssl;
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException("cannot set up TLS: " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        client.close();
    }
}
