package dev.tern.it;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.tern.server.McpServer;
import dev.tern.testing.NettyLeakCheck;
import dev.tern.transport.http.HttpServerTransport;

/**
 * Serves {@link InteropServer} over Streamable HTTP on a free port of 127.0.0.1, prints
 * {@code serving at http://127.0.0.1:PORT/mcp} on stderr, and stops when stdin ends (or on SIGTERM).
 * {@link #start()} runs it as a separate process from the test classpath, the way the HTTP interop tests use it.
 */
public final class InteropHttpMain {
    private static final Pattern URL = Pattern.compile("serving at (http://\\S+)");

    private InteropHttpMain() {
    }

    public static void main(String[] args) throws Exception {
        McpServer server = InteropServer.create();
        HttpServerTransport http = HttpServerTransport.builder(server).port(0).build().start();
        // Named as tern serve's own hook, which the leak report at exit waits for (NettyLeakCheck.processOptions).
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            http.close();
            server.close();
        }, "tern-shutdown"));
        System.err.println("interop server: serving at " + http.url());
        System.err.flush();
        InputStream in = System.in;
        while (in.read() >= 0) {
            // runs until stdin ends: the test that started it is gone or done
        }
        System.exit(0);
    }

    /** Starts this server as a child process and waits until it prints its URL (at most 60 s). */
    public static Running start() throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(TernProcess.javaExecutable(), "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1"));
        command.addAll(NettyLeakCheck.processOptions());
        command.addAll(List.of("-cp", TernProcess.classpath(), InteropHttpMain.class.getName()));
        Running running = new Running(new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD).start());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            Matcher m = URL.matcher(running.stderr());
            if (m.find()) {
                running.url = m.group(1);
                return running;
            }
            if (!running.process.isAlive()) {
                break;
            }
            Thread.sleep(50);
        }
        running.close();
        throw new IllegalStateException("the interop server did not print its URL; stderr:\n" + running.stderr());
    }

    /** A started interop server process; {@link #close()} ends its stdin, then stops it if it lingers. */
    public static final class Running implements AutoCloseable {
        private final Process process;
        private final ByteArrayOutputStream stderr = new ByteArrayOutputStream();
        private final Thread stderrPump;
        private volatile String url;

        private Running(Process process) {
            this.process = process;
            this.stderrPump = Thread.ofPlatform().daemon().start(() -> {
                byte[] buffer = new byte[8192];
                try (InputStream err = process.getErrorStream()) {
                    for (int n; (n = err.read(buffer)) >= 0; ) {
                        synchronized (stderr) {
                            stderr.write(buffer, 0, n);
                        }
                    }
                } catch (IOException ignored) {
                    // the process ended
                }
            });
        }

        public String url() {
            return url;
        }

        public String stderr() {
            synchronized (stderr) {
                return stderr.toString(StandardCharsets.UTF_8);
            }
        }

        public boolean isAlive() {
            return process.isAlive();
        }

        @Override
        public void close() throws InterruptedException {
            try (OutputStream stdin = process.getOutputStream()) {
                stdin.flush();
            } catch (IOException ignored) {
                // already closed
            }
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroy();
                if (!process.waitFor(10, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            }
            stderrPump.join(1_000);
            int leaks = NettyLeakCheck.leaksReportedAtExit(stderr());
            if (leaks > 0 || (leaks < 0 && process.exitValue() == 0)) {
                throw new AssertionError((leaks > 0 ? "Netty reported a leak in the interop server"
                        : "the interop server printed no leak report") + "; its stderr:\n" + stderr());
            }
        }
    }
}
