package dev.tern.transport.http;

import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.List;

import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

import io.netty.channel.Channel;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.ssl.SslHandler;

/**
 * The client certificate verified in a connection's TLS handshake, for the request path: an HTTP/1.1 request's
 * channel is the connection, an HTTP/2 request's is a stream whose parent is the connection.
 */
final class TlsPeer {
    private TlsPeer() {
    }

    /** The connection's TLS session, or {@code null} when the request did not come over TLS. */
    static SSLSession session(Channel requestChannel) {
        Channel connection = requestChannel instanceof Http2StreamChannel ? requestChannel.parent() : requestChannel;
        SslHandler tls = connection.pipeline().get(SslHandler.class);
        return tls == null ? null : tls.engine().getSession();
    }

    /** The verified client certificate chain, the client's own first; empty when the client presented none. */
    static List<X509Certificate> certificates(Channel requestChannel) {
        SSLSession session = session(requestChannel);
        if (session == null) {
            return List.of();
        }
        try {
            Certificate[] chain = session.getPeerCertificates();
            return java.util.Arrays.stream(chain).map(X509Certificate.class::cast).toList();
        } catch (SSLPeerUnverifiedException none) {
            return List.of();
        }
    }
}
