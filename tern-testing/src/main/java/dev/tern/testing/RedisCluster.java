package dev.tern.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A Redis Cluster of a test's own: three masters, with or without replicas, each node a {@code redis-server} on free
 * loopback ports (its client port and its cluster bus port) in a temporary directory, without persistence, the 16,384
 * slots spread over the masters by {@code redis-cli --cluster create}. {@link #start} returns once every node reports
 * {@code cluster_state:ok} and every replica has caught up; whatever fails on the way stops what was started. A test
 * may kill a master ({@link #kill}) and wait for its replica to take over ({@link #awaitOk}), or stop the whole
 * cluster and start it again on the same ports ({@link #stop}, {@link #startAgain}).
 */
public final class RedisCluster implements AutoCloseable {
    private static final int MASTERS = 3;
    private static final long START_SECONDS = 60;

    private final Path dir;
    private final int replicas;
    private final Duration nodeTimeout;
    private final List<Integer> ports = new ArrayList<>();
    private final List<Integer> busPorts = new ArrayList<>();
    private final List<Process> processes = new ArrayList<>();

    private RedisCluster(Path dir, int replicas, Duration nodeTimeout) {
        this.dir = dir;
        this.replicas = replicas;
        this.nodeTimeout = nodeTimeout;
    }

    /**
     * Starts three masters without replicas; fails, naming the install script, when {@code redis-server} or
     * {@code redis-cli} is missing.
     */
    public static RedisCluster start() {
        return start(0, Duration.ofSeconds(5));
    }

    /**
     * Starts three masters with {@code replicasPerMaster} replicas each. A replica takes over from a master that
     * has not answered for {@code nodeTimeout} (plus an election of about a second), however far behind it is.
     */
    public static RedisCluster start(int replicasPerMaster, Duration nodeTimeout) {
        String server = RedisServer.executable("redis-server");
        String cli = RedisServer.executable("redis-cli");
        RedisCluster cluster;
        try {
            cluster = new RedisCluster(Files.createTempDirectory("tern-redis-cluster"), replicasPerMaster, nodeTimeout);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try {
            for (int i = 0; i < MASTERS * (1 + replicasPerMaster); i++) {
                cluster.ports.add(RedisServer.freePort());
                cluster.busPorts.add(RedisServer.freePort());
            }
            cluster.startNodes(server);
            cluster.create(cli);
            cluster.awaitOk();
            cluster.awaitReplicated();
            return cluster;
        } catch (RuntimeException | Error e) {
            cluster.close();
            throw e;
        }
    }

    /** The client ports of every node, in the order they were started (the masters first when it was created). */
    public List<Integer> ports() {
        return List.copyOf(ports);
    }

    /** The client ports of the nodes that are masters holding slots now, as a live node sees the cluster. */
    public List<Integer> masters() {
        List<Integer> masters = new ArrayList<>();
        for (String line : clusterNodes().split("\n")) {
            String[] f = line.trim().split(" ");
            // id address flags master-id ping pong epoch link-state slot...
            if (f.length > 8 && f[2].contains("master") && !f[2].contains("fail")) {
                masters.add(Integer.parseInt(f[1].substring(f[1].lastIndexOf(':') + 1, f[1].indexOf('@'))));
            }
        }
        return masters;
    }

    /** The URI Tern connects to a cluster with, naming every node as a seed. */
    public String uri() {
        StringBuilder uri = new StringBuilder("redis-cluster://");
        for (int i = 0; i < ports.size(); i++) {
            uri.append(i == 0 ? "" : ",").append("127.0.0.1:").append(ports.get(i));
        }
        return uri.toString();
    }

    /** The plain URI of the node started {@code index}-th, for a client of that node alone. */
    public String nodeUri(int index) {
        return "redis://127.0.0.1:" + ports.get(index);
    }

    /** Kills the node on {@code port} at once (SIGKILL), as a crash would. */
    public void kill(int port) {
        Process p = processes.get(ports.indexOf(port));
        p.destroyForcibly();
        try {
            p.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Stops every node at once (SIGKILL); {@link #startAgain} brings the same cluster back, empty. */
    public void stop() {
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
    }

    /** Starts every stopped node again on its ports, from its cluster configuration, and waits until all is ok. */
    public void startAgain() {
        String server = RedisServer.executable("redis-server");
        for (int i = 0; i < processes.size(); i++) {
            if (!processes.get(i).isAlive()) {
                processes.set(i, launch(server, i));
            }
        }
        awaitAnswering();
        awaitOk();
    }

    private void startNodes(String server) {
        for (int i = 0; i < ports.size(); i++) {
            processes.add(launch(server, i));
        }
        awaitAnswering();
    }

    private Process launch(String server, int i) {
        Path node = dir.resolve("node" + i);
        try {
            Files.createDirectories(node);
            return new ProcessBuilder(server, "--port", Integer.toString(ports.get(i)),
                    "--cluster-enabled", "yes", "--cluster-port", Integer.toString(busPorts.get(i)),
                    "--cluster-config-file", node.resolve("nodes.conf").toString(),
                    "--cluster-node-timeout", Long.toString(nodeTimeout.toMillis()),
                    // a replica takes over however long ago it last heard from its master
                    "--cluster-replica-validity-factor", "0",
                    "--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0",
                    "--bind", "127.0.0.1", "--dir", node.toString(),
                    "--save", "", "--appendonly", "no", "--daemonize", "no", "--protected-mode", "yes",
                    "--logfile", node.resolve("redis.log").toString())
                    .redirectErrorStream(true).redirectOutput(node.resolve("redis.out").toFile()).start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start redis-server; run " + RedisServer.INSTALL, e);
        }
    }

    private void awaitAnswering() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_SECONDS);
        for (int i = 0; i < ports.size(); i++) {
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
        command.addAll(List.of("--cluster-replicas", Integer.toString(replicas), "--cluster-yes"));
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

    /**
     * Waits until every live node has every slot covered and knows every node, such as after a master was killed
     * and its replica took over.
     */
    public void awaitOk() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_SECONDS);
        for (int i = 0; i < ports.size(); i++) {
            if (!processes.get(i).isAlive()) {
                continue;
            }
            String info = "";
            while (!(info.contains("cluster_state:ok") && info.contains("cluster_known_nodes:" + ports.size())
                    && info.contains("cluster_slots_ok:16384"))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the cluster is not ok on port " + ports.get(i) + ": " + info);
                }
                RedisServer.sleep(50);
                info = command(ports.get(i), "CLUSTER", "INFO");
            }
        }
    }

    /** Waits until every live replica is linked to its master and has what the master has written so far. */
    public void awaitReplicated() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_SECONDS);
        for (int port : masters()) {
            while (!caughtUp(command(port, "INFO", "replication"))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the replicas of port " + port + " did not catch up: "
                            + command(port, "INFO", "replication"));
                }
                RedisServer.sleep(20);
            }
        }
    }

    /** Whether a master's replicas are online with the master's offset, from its {@code INFO replication}. */
    private boolean caughtUp(String info) {
        long offset = -1;
        int online = 0;
        boolean behind = false;
        for (String line : info.split("\r?\n")) {
            if (line.startsWith("master_repl_offset:")) {
                offset = Long.parseLong(line.substring("master_repl_offset:".length()).trim());
            }
        }
        for (String line : info.split("\r?\n")) {
            if (line.startsWith("slave") && line.contains("state=online")) {
                online++;
                String o = line.substring(line.indexOf("offset=") + "offset=".length());
                behind |= Long.parseLong(o.substring(0, o.indexOf(','))) < offset;
            }
        }
        long alive = processes.stream().filter(Process::isAlive).count();
        int expected = alive == processes.size() ? replicas : 0;
        return offset >= 0 && online >= expected && !behind;
    }

    /** {@code CLUSTER NODES} as a live node answers it. */
    private String clusterNodes() {
        for (int i = 0; i < ports.size(); i++) {
            if (processes.get(i).isAlive()) {
                String nodes = command(ports.get(i), "CLUSTER", "NODES");
                if (!nodes.isEmpty()) {
                    return nodes;
                }
            }
        }
        throw new IllegalStateException("no node of the cluster answers");
    }

    /** One command's answer from one node as text (a bulk string, or the line of another reply), "" on failure. */
    static String command(int port, String... args) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 500);
            s.setSoTimeout(1000);
            StringBuilder request = new StringBuilder("*").append(args.length).append("\r\n");
            for (String a : args) {
                request.append('$').append(a.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(a)
                        .append("\r\n");
            }
            OutputStream out = s.getOutputStream();
            out.write(request.toString().getBytes(StandardCharsets.UTF_8));
            InputStream in = s.getInputStream();
            StringBuilder header = new StringBuilder();
            for (int c = in.read(); c >= 0 && c != '\n'; c = in.read()) {
                header.append((char) c);
            }
            if (header.isEmpty() || header.charAt(0) != '$') {
                return header.toString();
            }
            int length = Integer.parseInt(header.toString().trim().substring(1));
            return new String(in.readNBytes(length), StandardCharsets.UTF_8);
        } catch (IOException | NumberFormatException e) {
            return "";
        }
    }

    /** Stops every node at once (SIGKILL) and deletes their directories. */
    @Override
    public void close() {
        stop();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temporary directory left behind is harmless
        }
    }

    private String log(int node) {
        Path d = dir.resolve("node" + node);
        return read(d.resolve(Files.exists(d.resolve("redis.log")) ? "redis.log" : "redis.out"));
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            return "(nothing at " + file + ")";
        }
    }
}
