package dev.tern.it;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.tern.testing.NettyLeakCheck;

/**
 * A real {@code tern} process started from the test classpath, as a client would start it. The process's stderr is
 * collected; {@link #close()} stops it (SIGTERM, then SIGKILL after 10 s) and fails if Netty reported a leak in it:
 * the process tracks every buffer, as the test JVMs do, and prints the leaks it found on its way out
 * ({@link NettyLeakCheck#processOptions()}).
 */
public final class TernProcess implements AutoCloseable {
    /** Netty loads native code (epoll, BoringSSL), as the tern command lets it (bin/jvm-flags.sh). */
    private static final String NATIVE_ACCESS = "--enable-native-access=ALL-UNNAMED";

    private final Process process;
    private final ByteArrayOutputStream stderr = new ByteArrayOutputStream();
    private final Thread stderrPump;
    private volatile String url;

    private TernProcess(List<String> command) throws IOException {
        this(command, Map.of());
    }

    private TernProcess(List<String> command, Map<String, String> environment) throws IOException {
        List<String> checked = new ArrayList<>(command);
        checked.addAll(1, NettyLeakCheck.processOptions());
        checked.add(1, NATIVE_ACCESS);
        ProcessBuilder builder = new ProcessBuilder(checked).redirectError(ProcessBuilder.Redirect.PIPE);
        builder.environment().putAll(environment);
        this.process = builder.start();
        this.stderrPump = Thread.ofPlatform().daemon().start(() -> {
            try (InputStream err = process.getErrorStream()) {
                err.transferTo(new OutputStream() {
                    @Override
                    public void write(int b) {
                        synchronized (stderr) {
                            stderr.write(b);
                        }
                    }

                    @Override
                    public void write(byte[] b, int off, int len) {
                        synchronized (stderr) {
                            stderr.write(b, off, len);
                        }
                    }
                });
            } catch (IOException ignored) {
                // the process ended
            }
        });
    }

    /** Starts a Java main class from the test classpath, with {@code args}. */
    public static TernProcess main(Class<?> mainClass, String... args) throws IOException {
        return main(Map.of(), mainClass, args);
    }

    /** As {@link #main(Class, String...)}, with these variables added to the process's environment. */
    public static TernProcess main(Map<String, String> environment, Class<?> mainClass, String... args)
            throws IOException {
        List<String> command = new ArrayList<>(List.of(javaExecutable(), "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-cp", classpath(), mainClass.getName()));
        command.addAll(List.of(args));
        return new TernProcess(command, environment);
    }

    /** Starts {@code tern serve --stdio --example NAME} plus {@code extraArgs}. */
    public static TernProcess stdio(String example, String... extraArgs) throws IOException {
        return new TernProcess(command(example, extraArgs));
    }

    /**
     * Starts {@code tern serve --example NAME --port 0} over Streamable HTTP and waits until it prints its URL.
     */
    public static TernProcess http(String example, String... extraArgs) throws IOException, InterruptedException {
        return http(0, example, extraArgs);
    }

    /** As {@link #http(String, String...)}, on {@code port}. */
    public static TernProcess http(int port, String example, String... extraArgs)
            throws IOException, InterruptedException {
        return http(Map.of(), port, example, extraArgs);
    }

    /** As {@link #http(int, String, String...)}, with these variables added to the process's environment. */
    public static TernProcess http(Map<String, String> environment, int port, String example, String... extraArgs)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(javaExecutable(), "-XX:+UseSerialGC", "-cp", classpath(),
                "dev.tern.cli.Main", "serve", "--example", example, "--port", Integer.toString(port)));
        command.addAll(List.of(extraArgs));
        return started(new TernProcess(command, environment));
    }

    /** Starts {@code tern serve --port 0} with {@code args} alone (no example implied) and waits for its URL. */
    public static TernProcess serve(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(javaExecutable(), "-XX:+UseSerialGC", "-cp", classpath(),
                "dev.tern.cli.Main", "serve", "--port", "0"));
        command.addAll(List.of(args));
        return started(new TernProcess(command));
    }

    /** Waits until a {@code tern serve} over HTTP prints its URL, or stops it and fails. */
    private static TernProcess started(TernProcess process) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        java.util.regex.Pattern url = java.util.regex.Pattern.compile("at (https?://\\S+)");
        while (System.nanoTime() < deadline) {
            java.util.regex.Matcher m = url.matcher(process.stderr());
            if (m.find()) {
                process.url = m.group(1);
                return process;
            }
            if (!process.process.isAlive()) {
                break;
            }
            Thread.sleep(50);
        }
        process.stop();
        throw new IllegalStateException("tern serve did not print its URL; stderr:\n" + process.stderr());
    }

    /** The endpoint URL of a process started with {@link #http}. */
    public String url() {
        return url;
    }

    /** The command line that starts {@code tern serve --stdio --example NAME}, for clients that spawn it themselves. */
    public static List<String> command(String example, String... extraArgs) {
        List<String> command = new ArrayList<>();
        command.add(javaExecutable());
        command.add(NATIVE_ACCESS);
        command.add("-XX:+UseSerialGC");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-cp");
        command.add(classpath());
        command.add("dev.tern.cli.Main");
        command.add("serve");
        command.add("--stdio");
        command.add("--example");
        command.add(example);
        command.addAll(List.of(extraArgs));
        return command;
    }

    public static String javaExecutable() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    public static String classpath() {
        return System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    }

    public Process process() {
        return process;
    }

    public OutputStream stdin() {
        return process.getOutputStream();
    }

    public InputStream stdout() {
        return process.getInputStream();
    }

    public String stderr() {
        synchronized (stderr) {
            return stderr.toString(StandardCharsets.UTF_8);
        }
    }

    /** Waits for the process to exit; returns its exit code, or -1 if it is still running after the timeout. */
    public int waitFor(long timeout, TimeUnit unit) throws InterruptedException {
        return process.waitFor(timeout, unit) ? process.exitValue() : -1;
    }

    /**
     * Stops the process, and fails if it reported a leak; a server over HTTP that ended on this SIGTERM must have
     * reported (it serves with Netty's buffers, so its leak report ran or was lost).
     */
    @Override
    public void close() throws InterruptedException {
        boolean stoppedHere = stop();
        String err = stderr();
        int leaks = NettyLeakCheck.leaksReportedAtExit(err);
        if (leaks > 0 || (leaks < 0 && url != null && stoppedHere && process.exitValue() == 143)) {
            throw new AssertionError((leaks > 0 ? "Netty reported a leak in the tern process"
                    : "the tern process printed no leak report") + "; its stderr:\n" + err);
        }
    }

    /** SIGTERM, then SIGKILL after 10 s; whether this call sent the SIGTERM. */
    private boolean stop() throws InterruptedException {
        boolean stoppedHere = false;
        if (process.isAlive()) {
            stoppedHere = true;
            // SIGTERM through the handle: Process.destroy() would also close the pipes, losing what the process
            // writes on its way out (the leak report).
            process.toHandle().destroy();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        stderrPump.join(1_000);
        return stoppedHere;
    }
}
