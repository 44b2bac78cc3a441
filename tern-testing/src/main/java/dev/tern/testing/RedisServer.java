package dev.tern.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A {@code redis-server} of a test's own: on a free loopback port, in a temporary directory, without persistence.
 * {@link #stop} and {@link #start} again keep the port, so a test can take Redis away and bring it back.
 */
public final class RedisServer implements AutoCloseable {
    static final String INSTALL = "bin/install-redis.sh";

    private final Path dir;
    private final int port;
    private Process process;

    private RedisServer(Path dir, int port) {
        this.dir = dir;
        this.port = port;
    }

    /** Starts a server; fails, naming the install script, when {@code redis-server} is missing. */
    public static RedisServer start() {
        Path dir;
        try {
            dir = Files.createTempDirectory("tern-redis");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        RedisServer server = new RedisServer(dir, freePort());
        server.startAgain();
        return server;
    }

    public int port() {
        return port;
    }

    public String uri() {
        return "redis://127.0.0.1:" + port;
    }

    /** Starts the stopped server again on the same port. */
    public synchronized void startAgain() {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException("redis-server is running");
        }
        List<String> command = List.of(executable("redis-server"), "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--dir", dir.toString(), "--save", "", "--appendonly", "no", "--daemonize", "no",
                "--protected-mode", "yes", "--logfile", dir.resolve("redis.log").toString());
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(dir.resolve("redis.out").toFile()).start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start redis-server; run " + INSTALL, e);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!answersPing(port)) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                stop();
                throw new IllegalStateException("redis-server did not start on port " + port + ": " + log());
            }
            sleep(20);
        }
    }

    /** Stops the server at once (SIGKILL), as a crash would. */
    public synchronized void stop() {
        if (process != null) {
            process.destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void close() {
        stop();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temporary directory left behind is harmless
        }
    }

    static boolean answersPing(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 200);
            s.setSoTimeout(500);
            s.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            byte[] answer = new byte[7];
            int n = s.getInputStream().read(answer);
            return n > 0 && new String(answer, 0, n, StandardCharsets.US_ASCII).startsWith("+PONG");
        } catch (IOException e) {
            return false;
        }
    }

    private String log() {
        try {
            return Files.exists(dir.resolve("redis.log")) ? Files.readString(dir.resolve("redis.log"))
                    : Files.readString(dir.resolve("redis.out"));
        } catch (IOException e) {
            return "(no log)";
        }
    }

    /** The path of {@code redis-server} or {@code redis-cli}. */
    static String executable(String name) {
        for (String d : System.getenv().getOrDefault("PATH", "/usr/bin").split(java.io.File.pathSeparator)) {
            Path p = Path.of(d, name);
            if (Files.isExecutable(p)) {
                return p.toString();
            }
        }
        for (String d : List.of("/usr/bin", "/usr/local/bin", "/usr/sbin")) {
            Path p = Path.of(d, name);
            if (Files.isExecutable(p)) {
                return p.toString();
            }
        }
        throw new IllegalStateException(name + " is not installed: run " + INSTALL);
    }

    static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
