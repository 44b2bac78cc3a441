package dev.tern.transport.http;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ReferenceCountedOpenSslEngine;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;

/**
 * The TLS context new connections get, replaced when the certificate, key, trust or CRL files change, and the OCSP
 * response stapled to their handshakes. The files are polled for their modification time, size and identity rather
 * than watched: a watch does not see a file replaced behind a symbolic link (as mounted secrets are), and a poll every
 * few seconds costs nothing. A new context is built whole and then swapped in at once, so a handshake sees either the
 * old files or the new ones; connections already open keep the context they began with. Files that do not load (a
 * half-written file, a key not matching its certificate) are logged and the context in use kept until they change.
 */
final class TlsContexts implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger("dev.tern.transport.http");

    private final HttpOptions.Tls tls;
    private volatile Served current;
    private List<Object> stamps;
    private ScheduledExecutorService poller;

    /** A context and, when stapling, what fetches its certificate's OCSP response. */
    private record Served(SslContext context, OcspStapler stapler) {
    }

    TlsContexts(HttpOptions.Tls tls) {
        this.tls = tls;
        this.stamps = stamps();
        this.current = load();
    }

    /** A handler for a connection accepted now, with the OCSP response stapled when there is one. */
    SslHandler newHandler(ByteBufAllocator alloc) {
        Served s = current;
        SslHandler handler = s.context().newHandler(alloc);
        byte[] ocsp = s.stapler() == null ? null : s.stapler().response();
        if (ocsp != null && handler.engine() instanceof ReferenceCountedOpenSslEngine engine) {
            engine.setOcspResponse(ocsp);
        }
        return handler;
    }

    /** Starts polling the files and fetching OCSP responses, unless there is nothing to poll or fetch. */
    synchronized void start() {
        long every = tls.reloadInterval().toMillis();
        if (tls.selfSigned() || (every == 0 && current.stapler() == null) || poller != null) {
            return;
        }
        poller = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("tern-tls-reload")
                .factory());
        if (every > 0) {
            poller.scheduleWithFixedDelay(this::reloadIfChanged, every, every, TimeUnit.MILLISECONDS);
        }
        staple(current);
    }

    /** Builds and swaps in a new context when a file changed; whether one was swapped in. */
    synchronized boolean reloadIfChanged() {
        List<Object> now = stamps();
        if (now.equals(stamps)) {
            return false;
        }
        stamps = now;
        try {
            Served next = load();
            current = next;
            LOG.log(System.Logger.Level.INFO, "Reloaded the TLS certificate from {0}", tls.certificateChain());
            staple(next);
            return true;
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "Kept the TLS certificate in use: the changed files do not load: {0}",
                    e.getMessage());
            return false;
        }
    }

    private Served load() {
        // The chain is read once for both, so that the response stapled is always for the certificate served.
        List<X509Certificate> chain = TlsSupport.chain(tls);
        SslContext context = TlsSupport.context(tls, chain);
        if (!tls.ocspStapling() || chain == null) {
            return new Served(context, null);
        }
        if (!TlsSupport.stapling(tls)) {
            LOG.log(System.Logger.Level.WARNING, "No OCSP stapling: it needs the BoringSSL provider, which did not load");
            return new Served(context, null);
        }
        return new Served(context, OcspStapler.forChain(chain));
    }

    /** Fetches the OCSP response of {@code served} now and again when due, while it is the one served. */
    private synchronized void staple(Served served) {
        if (served.stapler() == null || poller == null) {
            return;
        }
        poller.execute(() -> {
            if (current != served) {
                return;
            }
            Duration wait = served.stapler().refresh();
            synchronized (this) {
                if (poller != null && current == served) {
                    poller.schedule(() -> staple(served), wait.toMillis(), TimeUnit.MILLISECONDS);
                }
            }
        });
    }

    /** What tells that a file changed: its modification time, size and file identity (a replaced file's is new). */
    private List<Object> stamps() {
        List<Object> stamps = new ArrayList<>();
        Stream.of(tls.certificateChain(), tls.privateKey(), tls.trust(), tls.revocationList())
                .filter(Objects::nonNull).forEach(file -> stamps.add(stamp(file)));
        return stamps;
    }

    private static Object stamp(Path file) {
        try {
            BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
            return List.of(a.lastModifiedTime(), a.size(), String.valueOf(a.fileKey()));
        } catch (IOException e) {
            return "missing";
        }
    }

    @Override
    public synchronized void close() {
        if (poller != null) {
            poller.shutdownNow();
            poller = null;
        }
    }
}
