package dev.tern.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The Node.js side of the integration tests: the repository root, the pinned Node 22 ({@code bin/install-node.sh})
 * and the npm packages of {@code tern-it/src/test/js/package.json} ({@code bin/install-npm-deps.sh}), installed
 * into {@code .tools/} on first use, and a way to run processes with a bound on their time.
 */
public final class NodeTools {
    /** Installing downloads Node (about 50 MB) and the packages; later calls return at once. */
    private static final Duration INSTALL_TIMEOUT = Duration.ofMinutes(10);

    private static Path root;
    private static Path node;
    private static Path npmDir;

    private NodeTools() {
    }

    /** The repository root: the {@code tern.root} system property, else the nearest parent with {@code bin/install-node.sh}. */
    public static synchronized Path root() {
        if (root == null) {
            String property = System.getProperty("tern.root");
            if (property != null && !property.isBlank() && isRoot(Path.of(property))) {
                root = Path.of(property).toAbsolutePath().normalize();
            } else {
                for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
                    if (isRoot(dir)) {
                        root = dir;
                        break;
                    }
                }
            }
            if (root == null) {
                throw new IllegalStateException("cannot find the repository root (tern.root=" + property
                        + ", working directory " + Path.of("").toAbsolutePath() + ")");
            }
        }
        return root;
    }

    private static boolean isRoot(Path dir) {
        return Files.isRegularFile(dir.resolve("bin/install-node.sh")) && Files.isRegularFile(dir.resolve("pom.xml"));
    }

    /** The Node 22 binary, installed into {@code .tools/node} if needed. */
    public static synchronized Path node() throws IOException, InterruptedException {
        if (node == null) {
            node = Path.of(runScript("bin/install-node.sh"));
        }
        return node;
    }

    /** The directory whose {@code node_modules} holds the test packages, installed into {@code .tools/npm} if needed. */
    public static synchronized Path npmDir() throws IOException, InterruptedException {
        if (npmDir == null) {
            npmDir = Path.of(runScript("bin/install-npm-deps.sh"));
        }
        return npmDir;
    }

    /** The version of {@code name} the committed package.json pins. */
    public static String pinnedVersion(String name) throws IOException {
        Path manifest = root().resolve("tern-it/src/test/js/package.json");
        return dev.tern.protocol.Json.mapper().readTree(Files.readString(manifest))
                .path("dependencies").path(name).asString();
    }

    private static String runScript(String script) throws IOException, InterruptedException {
        Result result = run(List.of("bash", root().resolve(script).toString()), root(), Map.of(), INSTALL_TIMEOUT);
        String out = result.stdout().strip();
        String last = out.isEmpty() ? "" : out.substring(out.lastIndexOf('\n') + 1);
        if (result.exitCode() != 0 || last.isEmpty() || !Files.exists(Path.of(last))) {
            throw new IllegalStateException(script + " failed (" + result.describe() + ")");
        }
        return last;
    }

    /** What a finished process left: exit code (-1 if it was killed for running too long), stdout and stderr. */
    public record Result(int exitCode, boolean timedOut, String stdout, String stderr) {
        public String describe() {
            return (timedOut ? "timed out" : "exit code " + exitCode) + "\n--- stdout\n" + tail(stdout)
                    + "\n--- stderr\n" + tail(stderr);
        }

        private static String tail(String s) {
            return s.length() <= 8_000 ? s : "..." + s.substring(s.length() - 8_000);
        }
    }

    /**
     * Runs {@code command} in {@code dir} with {@code env} added to this process's environment, its output
     * going to files (no pipe can fill up); kills it (and its children) if it runs longer than {@code timeout}.
     */
    public static Result run(List<String> command, Path dir, Map<String, String> env, Duration timeout)
            throws IOException, InterruptedException {
        Path out = Files.createTempFile("tern-run-", ".out");
        Path err = Files.createTempFile("tern-run-", ".err");
        try {
            ProcessBuilder builder = new ProcessBuilder(new ArrayList<>(command)).directory(dir.toFile())
                    .redirectOutput(out.toFile())
                    .redirectError(err.toFile());
            builder.environment().putAll(env);
            Process process = builder.start();
            process.getOutputStream().close();
            boolean finished = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (!finished) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            return new Result(finished ? process.exitValue() : -1, !finished,
                    Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }
}
