package dev.tern.transport.http;

import java.util.Locale;

import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerSocketChannel;

/**
 * How the server's event loops talk to the operating system's sockets. {@link #AUTO}, the default, takes epoll where
 * the platform has it and NIO otherwise. {@link #IO_URING} is taken only when asked for: it hands the kernel a turn's
 * reads and writes in one system call instead of one call each, which saves CPU where system calls are dear
 * (BENCHMARKS.md, "io_uring"), but Netty's io_uring transport (4.2.18) does not notice a peer that resets its
 * connection right after sending, so such a connection holds its slot until the request header or body timeout
 * closes it, and a client that keeps writing after an HTTP/2 GOAWAY can get a reset instead of the GOAWAY.
 */
public enum IoTransport {
    /** Linux epoll where the platform has it, else NIO. */
    AUTO,
    /**
     * Linux io_uring (a recent kernel with it not switched off); starting fails where it is not available. Never
     * chosen by {@link #AUTO}: see above.
     */
    IO_URING,
    /** Linux epoll; starting fails where it is not available. */
    EPOLL,
    /** The JDK's NIO selector: everywhere. */
    NIO;

    /** The transport this one stands for here: {@link #AUTO} resolved to epoll or else NIO, the others as they are. */
    public IoTransport resolve() {
        if (this != AUTO) {
            return this;
        }
        return Epoll.isAvailable() ? EPOLL : NIO;
    }

    /** Parses {@code auto}, {@code io_uring} (or {@code io-uring}), {@code epoll} or {@code nio}, in any case. */
    public static IoTransport parse(String name) {
        String n = name.strip().toUpperCase(Locale.ROOT).replace('-', '_');
        for (IoTransport t : values()) {
            if (t.name().equals(n)) {
                return t;
            }
        }
        throw new IllegalArgumentException("unknown I/O transport '" + name + "': auto, io_uring, epoll or nio");
    }

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Loads and links the native library of the transport this one resolves to, if it has one. */
    void preload() {
        resolve().unavailabilityCause();
    }

    /** Whether this transport can serve here. */
    boolean isAvailable() {
        return resolve().unavailabilityCause() == null;
    }

    /** This transport resolved, or an exception saying why the one asked for cannot be used here. */
    IoTransport resolveAvailable() {
        IoTransport t = resolve();
        Throwable missing = t.unavailabilityCause();
        if (missing != null) {
            throw new IllegalStateException(t + " is not available on this platform: " + missing, missing);
        }
        return t;
    }

    /** Of a resolved transport. */
    IoHandlerFactory handlerFactory() {
        return switch (this) {
            case IO_URING -> IoUringIoHandler.newFactory();
            case EPOLL -> EpollIoHandler.newFactory();
            default -> NioIoHandler.newFactory();
        };
    }

    /** Of a resolved transport. */
    Class<? extends ServerChannel> serverChannelType() {
        return switch (this) {
            case IO_URING -> IoUringServerSocketChannel.class;
            case EPOLL -> EpollServerSocketChannel.class;
            default -> NioServerSocketChannel.class;
        };
    }

    /** Why a resolved native transport cannot be used here ({@code null}: it can); loads its library. */
    private Throwable unavailabilityCause() {
        return switch (this) {
            case IO_URING -> IoUring.unavailabilityCause();
            case EPOLL -> Epoll.unavailabilityCause();
            default -> null;
        };
    }
}
