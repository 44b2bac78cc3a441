package dev.tern.transport.http;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.netty.handler.ssl.SslContext;

/**
 * The TLS context new connections get, replaced when the certificate, key, trust or CRL files change. The files are
 * polled for their modification time, size and identity rather than watched: a watch does not see a file replaced
 * behind a symbolic link (as mounted secrets are), and a poll every few seconds costs nothing. A new context is built
 * whole and then swapped in at once, so a handshake sees either the old files or the new ones; connections already
 * open keep the context they began with. Files that do not load (a half-written file, a key not matching its
 * certificate) are logged and the context in use kept until they change again.
 */
final class TlsContexts implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger("dev.tern.transport.http");

    private final HttpOptions.Tls tls;
    private volatile SslContext current;
    private List<Object> stamps;
    private ScheduledExecutorService poller;

    TlsContexts(HttpOptions.Tls tls) {
        this.tls = tls;
        this.stamps = stamps();
        this.current = TlsSupport.context(tls);
    }

    /** The context for a connection accepted now. */
    SslContext current() {
        return current;
    }

    /** Starts polling the files, unless the certificate is self-signed or the interval is zero. */
    synchronized void start() {
        long every = tls.reloadInterval().toMillis();
        if (tls.selfSigned() || every == 0 || poller != null) {
            return;
        }
        poller = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("tern-tls-reload")
                .factory());
        poller.scheduleWithFixedDelay(this::reloadIfChanged, every, every, TimeUnit.MILLISECONDS);
    }

    /** Builds and swaps in a new context when a file changed; whether one was swapped in. */
    synchronized boolean reloadIfChanged() {
        List<Object> now = stamps();
        if (now.equals(stamps)) {
            return false;
        }
        stamps = now;
        try {
            current = TlsSupport.context(tls);
            LOG.log(System.Logger.Level.INFO, "Reloaded the TLS certificate from {0}", tls.certificateChain());
            return true;
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "Kept the TLS certificate in use: the changed files do not load: {0}",
                    e.getMessage());
            return false;
        }
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
