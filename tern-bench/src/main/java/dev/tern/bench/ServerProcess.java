package dev.tern.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A server process the bench spawned: stopped with whatever it started (a wrapper script's server) on close. */
public final class ServerProcess implements AutoCloseable {
    private static final Pattern CPU_LIST = Pattern.compile("\\d+(-\\d+)?(,\\d+(-\\d+)?)*");
    private static final Pattern SERVING_AT = Pattern.compile(" at (https?://\\S+)");

    private final Process process;

    private ServerProcess(Process process) {
        this.process = process;
    }

    /** Spawns {@code command} with its output discarded. */
    public static ServerProcess spawn(List<String> command) throws IOException {
        return new ServerProcess(new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD).start());
    }

    /**
     * Spawns a JVM running {@code mainClass} with {@code args} on this JVM's class path and with its memory settings;
     * under {@code taskset -c cpus} when {@code cpus} is given, recorded by JFR into {@code jfr} (written when it
     * exits) when given. Its standard error is kept for {@link #awaitUrl}.
     */
    public static ServerProcess spawnJava(String mainClass, List<String> args, String cpus, Path jfr)
            throws IOException {
        return spawnJava(mainClass, args, cpus, jfr, List.of());
    }

    /** {@link #spawnJava(String, List, String, Path)} with more JVM options after this JVM's (such as {@code -Xmx512m}). */
    public static ServerProcess spawnJava(String mainClass, List<String> args, String cpus, Path jfr,
            List<String> jvmOptions) throws IOException {
        if (cpus != null && !isCpuList(cpus)) {
            throw new IllegalArgumentException("a CPU list such as 0 or 0,2-3, not '" + cpus + "'");
        }
        if (jfr != null && jfr.toAbsolutePath().toString().contains(",")) {
            throw new IllegalArgumentException("a JFR recording's path without commas (they separate JFR's options), "
                    + "not '" + jfr + "'");
        }
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> own = new ArrayList<>(ManagementFactory.getRuntimeMXBean().getInputArguments());
        own.addAll(jvmOptions);
        List<String> command = javaCommand(java, own, System.getProperty("java.class.path"), mainClass, args, cpus,
                jfr);
        try {
            return new ServerProcess(new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start());
        } catch (IOException e) {
            if (cpus != null) {
                throw new IOException("running a server on chosen CPUs needs taskset (util-linux): " + e.getMessage(),
                        e);
            }
            throw e;
        }
    }

    /** Whether {@code value} is a CPU list as {@code taskset -c} takes it, such as {@code 0} or {@code 0,2-3}. */
    public static boolean isCpuList(String value) {
        return CPU_LIST.matcher(value).matches();
    }

    /** The child JVM's command line (see {@link #spawnJava}). */
    static List<String> javaCommand(String java, List<String> ownJvmOptions, String classPath, String mainClass,
            List<String> args, String cpus, Path jfr) {
        List<String> command = new ArrayList<>();
        if (cpus != null) {
            command.addAll(List.of("taskset", "-c", cpus));
        }
        command.add(java);
        command.addAll(childJvmOptions(ownJvmOptions));
        if (jfr != null) {
            command.add("-XX:StartFlightRecording=settings=profile,dumponexit=true,filename=" + jfr.toAbsolutePath());
        }
        command.addAll(List.of("-cp", classPath, mainClass));
        command.addAll(args);
        return command;
    }

    /**
     * The JVM options for a child server: this JVM's own (the {@code tern} launcher's heap, collector and
     * {@code TERN_JAVA_OPTS}), without those that belong to this process alone: its start-up cache (made for
     * {@code -jar}, refused under {@code -cp}), agents and debugging.
     */
    static List<String> childJvmOptions(List<String> own) {
        return own.stream()
                .filter(o -> !o.startsWith("-XX:AOTCache") && !o.endsWith("AOTReplayTraining")
                        && !o.startsWith("-XX:SharedArchiveFile")
                        && !o.startsWith("-Xshare") && !o.startsWith("-XX:ArchiveClassesAtExit")
                        && !o.startsWith("-agentpath") && !o.startsWith("-agentlib") && !o.startsWith("-javaagent")
                        && !o.startsWith("-Xrunjdwp") && !o.startsWith("-XX:StartFlightRecording")
                        && !o.startsWith("-Djava.class.path"))
                .toList();
    }

    /**
     * Reads a {@link #spawnJava spawned JVM}'s standard error until it says where it serves ({@code ... at URL}),
     * and keeps draining it afterwards.
     */
    public URI awaitUrl(Duration timeout) throws IOException, InterruptedException {
        CompletableFuture<URI> found = new CompletableFuture<>();
        StringBuilder seen = new StringBuilder();
        Thread.ofPlatform().daemon().name("tern-bench-server-stderr").start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getErrorStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    if (!found.isDone()) {
                        synchronized (seen) {
                            seen.append(line).append('\n');
                        }
                        Matcher m = SERVING_AT.matcher(line);
                        if (m.find()) {
                            found.complete(URI.create(m.group(1)));
                        }
                    }
                }
            } catch (IOException e) {
                // the process ended
            }
            found.completeExceptionally(new IllegalStateException("the server exited before serving"));
        });
        try {
            return found.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            synchronized (seen) {
                throw new IOException("the server did not start: " + seen.toString().strip(), e);
            }
        }
    }

    public long pid() {
        return process.pid();
    }

    /** Stops the server and whatever it started: SIGTERM, then SIGKILL after 10 s. */
    @Override
    public void close() {
        List<ProcessHandle> descendants = process.descendants().toList();
        process.destroy();
        descendants.forEach(ProcessHandle::destroy);
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
            descendants.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
