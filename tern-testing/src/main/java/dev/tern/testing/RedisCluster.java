package dev.tern.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A Redis Cluster of a test's own: three masters without replicas, each a {@code redis-server} on free loopback ports
 * (its client port and its cluster bus port) in a temporary directory, without persistence, the 16,384 slots spread
 * over them by {@code redis-cli --cluster create}. {@link #start} returns once every master reports
 * {@code cluster_state:ok}; whatever fails on the way stops what was started.
 */
public final class RedisCluster implements AutoCloseable {
    private static final int MASTERS = 3;
    private static final long START_SECONDS = 60;

    private final Path dir;
    private final List<Integer> ports = new ArrayList<>();
    private final List<Process> processes = new ArrayList<>();

    private RedisCluster(Path dir) {
        this.dir = dir;
    }

    /**
     * Starts the cluster; fails, naming the install script, when {@code redis-server} or {@code redis-cli} is missing.
     */
    public static RedisCluster start() {
        String server = RedisServer.executable("redis-server");
        String cli = RedisServer.executable("redis-cli");
        RedisCluster cluster;
        try {
            cluster = new RedisCluster(Files.createTempDirectory("tern-redis-cluster"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try {
            cluster.startMasters(server);
            cluster.create(cli);
            cluster.awaitOk();
            return cluster;
        } catch (RuntimeException | Error e) {
            cluster.close();
            throw e;
        }
    }

    /** The client ports of the masters. */
    public List<Integer> ports() {
        return List.copyOf(ports);
    }

    /** The URI Tern connects to a cluster with, naming every master as a seed. */
    public String uri() {
        StringBuilder uri = new StringBuilder("redis-cluster://");
        for (int i = 0; i < ports.size(); i++) {
            uri.append(i == 0 ? "" : ",").append("127.0.0.1:").append(ports.get(i));
        }
        return uri.toString();
    }

    /** The plain URI of one master, for a client of that node alone. */
    public String nodeUri(int master) {
        return "redis://127.0.0.1:" + ports.get(master);
    }

    private void startMasters(String server) {
        for (int i = 0; i < MASTERS; i++) {
            Path node = dir.resolve("node" + i);
            int port = RedisServer.freePort();
            int bus = RedisServer.freePort();
            try {
                Files.createDirectories(node);
                processes.add(new ProcessBuilder(server, "--port", Integer.toString(port),
                        "--cluster-enabled", "yes", "--cluster-port", Integer.toString(bus),
                        "--cluster-config-file", node.resolve("nodes.conf").toString(),
                        "--cluster-node-timeout", "5000", "--bind", "127.0.0.1", "--dir", node.toString(),
                        "--save", "", "--appendonly", "no", "--daemonize", "no", "--protected-mode", "yes",
                        "--logfile", node.resolve("redis.log").toString())
                        .redirectErrorStream(true).redirectOutput(node.resolve("redis.out").toFile()).start());
            } catch (IOException e) {
                throw new IllegalStateException("cannot start redis-server; run " + RedisServer.INSTALL, e);
            }
            ports.add(port);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_SECONDS);
        for (int i = 0; i < MASTERS; i++) {
            while (!RedisServer.answersPing(ports.get(i))) {
                if (!processes.get(i).isAlive() || System.nanoTime() > deadline) {
                    throw new IllegalStateException("redis-server did not start on port " + ports.get(i) + ": "
                            + log(i));
                }
                RedisServer.sleep(20);
            }
        }
    }

    private void create(String cli) {
        List<String> command = new ArrayList<>(List.of(cli, "--cluster", "create"));
        ports.forEach(p -> command.add("127.0.0.1:" + p));
        command.addAll(List.of("--cluster-replicas", "0", "--cluster-yes"));
        Path out = dir.resolve("create.out");
        try {
            Process create = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
            if (!create.waitFor(START_SECONDS, TimeUnit.SECONDS)) {
                create.destroyForcibly();
                throw new IllegalStateException("redis-cli --cluster create did not finish: " + read(out));
            }
            if (create.exitValue() != 0) {
                throw new IllegalStateException("redis-cli --cluster create failed: " + read(out));
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot run redis-cli; run " + RedisServer.INSTALL, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Waits until every master has every slot covered and knows the others. */
    private void awaitOk() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_SECONDS);
        for (int port : ports) {
            String info = "";
            while (!(info.contains("cluster_state:ok") && info.contains("cluster_known_nodes:" + MASTERS)
                    && info.contains("cluster_slots_ok:16384"))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the cluster is not ok on port " + port + ": " + info);
                }
                RedisServer.sleep(50);
                info = clusterInfo(port);
            }
        }
    }

    /** {@code CLUSTER INFO} of one node, or "" when it does not answer. */
    private static String clusterInfo(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 500);
            s.setSoTimeout(1000);
            s.getOutputStream().write("CLUSTER INFO\r\n".getBytes(StandardCharsets.US_ASCII));
            InputStream in = s.getInputStream();
            StringBuilder header = new StringBuilder();
            for (int c = in.read(); c >= 0 && c != '\n'; c = in.read()) {
                header.append((char) c);
            }
            if (header.isEmpty() || header.charAt(0) != '$') {
                return header.toString();
            }
            int length = Integer.parseInt(header.toString().trim().substring(1));
            return new String(in.readNBytes(length), StandardCharsets.US_ASCII);
        } catch (IOException | NumberFormatException e) {
            return "";
        }
    }

    /** Stops every master at once (SIGKILL) and deletes their directories. */
    @Override
    public void close() {
        for (Process p : processes) {
            p.destroyForcibly();
        }
        for (Process p : processes) {
            try {
                p.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temporary directory left behind is harmless
        }
    }

    private String log(int master) {
        Path node = dir.resolve("node" + master);
        return read(node.resolve(Files.exists(node.resolve("redis.log")) ? "redis.log" : "redis.out"));
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            return "(nothing at " + file + ")";
        }
    }
}
