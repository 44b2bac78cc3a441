package dev.tern.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * An nginx of a test's own balancing round robin, without stickiness, over servers on loopback ports: its
 * configuration is generated in a temporary directory, it listens on a free loopback port, runs in the foreground
 * and is stopped by {@link #close}. Its access log names the upstream of every request and the session it carried;
 * its responses name it too, in {@code X-Upstream}.
 */
public final class Nginx implements AutoCloseable {
    private static final String INSTALL = "bin/install-nginx.sh";

    private final Path dir;
    private final int port;
    private final Process process;

    private Nginx(Path dir, int port, Process process) {
        this.dir = dir;
        this.port = port;
        this.process = process;
    }

    /** Starts nginx in front of {@code upstreamPorts} on 127.0.0.1. */
    public static Nginx start(List<Integer> upstreamPorts) {
        Path dir;
        int port = freePort();
        try {
            dir = Files.createTempDirectory("tern-nginx");
            StringBuilder upstreams = new StringBuilder();
            for (int p : upstreamPorts) {
                upstreams.append("    server 127.0.0.1:").append(p).append(" max_fails=1 fail_timeout=30s;\n");
            }
            Files.writeString(dir.resolve("nginx.conf"), """
                    daemon off;
                    worker_processes 1;
                    pid %1$s/nginx.pid;
                    error_log %1$s/error.log warn;
                    events { worker_connections 1024; }
                    http {
                      log_format upstream '$request_method $status $upstream_addr $http_mcp_session_id';
                      access_log %1$s/access.log upstream;
                      client_body_temp_path %1$s/body;
                      proxy_temp_path %1$s/proxy;
                      fastcgi_temp_path %1$s/fastcgi;
                      uwsgi_temp_path %1$s/uwsgi;
                      scgi_temp_path %1$s/scgi;
                      upstream tern {
                    %2$s  }
                      server {
                        listen 127.0.0.1:%3$d;
                        location / {
                          proxy_pass http://tern;
                          proxy_http_version 1.1;
                          proxy_set_header Connection "";
                          proxy_set_header Host $http_host;
                          proxy_buffering off;
                          proxy_request_buffering off;
                          proxy_read_timeout 120s;
                          proxy_next_upstream error timeout;
                          add_header X-Upstream $upstream_addr always;
                        }
                      }
                    }
                    """.formatted(dir, upstreams, port));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Process process;
        try {
            process = new ProcessBuilder(executable(), "-p", dir.toString(), "-c", dir.resolve("nginx.conf").toString(),
                    "-e", dir.resolve("error.log").toString())
                    .redirectErrorStream(true).redirectOutput(dir.resolve("nginx.out").toFile()).start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start nginx; run " + INSTALL, e);
        }
        Nginx nginx = new Nginx(dir, port, process);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!nginx.listening()) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                nginx.close();
                throw new IllegalStateException("nginx did not start: " + nginx.read("nginx.out") + nginx.read("error.log"));
            }
            sleep(20);
        }
        return nginx;
    }

    public String url(String path) {
        return "http://127.0.0.1:" + port + path;
    }

    /** The access log's lines: method, status, upstream address(es) and the Mcp-Session-Id sent. */
    public List<String> accessLog() {
        String log = read("access.log");
        return log.isEmpty() ? List.of() : List.of(log.split("\n"));
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temporary directory left behind is harmless
        }
    }

    private boolean listening() {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private String read(String file) {
        try {
            Path p = dir.resolve(file);
            return Files.exists(p) ? Files.readString(p) : "";
        } catch (IOException e) {
            return "";
        }
    }

    private static String executable() {
        List<String> dirs = new ArrayList<>(List.of(System.getenv().getOrDefault("PATH", "").split(":")));
        dirs.addAll(List.of("/usr/sbin", "/usr/local/sbin", "/usr/bin"));
        for (String d : dirs) {
            Path p = Path.of(d.isEmpty() ? "." : d, "nginx");
            if (Files.isExecutable(p)) {
                return p.toString();
            }
        }
        throw new IllegalStateException("nginx is not installed: run " + INSTALL);
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
