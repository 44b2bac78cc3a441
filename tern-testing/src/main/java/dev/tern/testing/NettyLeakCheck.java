package dev.tern.testing;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test class after which Netty reported a leak: a buffer (or another reference-counted object) that was
 * garbage-collected without being released. After the class's own clean-up it collects garbage and has each
 * detector look at what was collected; a leak of an earlier class still unreported shows here at the latest, and
 * one last look once all the JVM's classes are done (and what was opened for all of them is closed) fails the run.
 * Tern's build registers it for every test class (JUnit's extension autodetection, limited to this class); it does
 * nothing where {@link RecordingLeakDetector} is not Netty's detector.
 */
public final class NettyLeakCheck implements BeforeAllCallback, AfterAllCallback {
    /** The line a process started with {@link #processOptions()} prints on stderr at exit, then the leak count. */
    public static final String EXIT_REPORT_HEADER = "tern-leak-report: ";
    private static final Pattern EXIT_REPORT = Pattern.compile("(?m)^" + EXIT_REPORT_HEADER + "(\\d+) leak\\(s\\)$");
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(NettyLeakCheck.class);

    @Override
    public void beforeAll(ExtensionContext context) {
        // The first resource of the root store is closed last.
        context.getRoot().getStore(NAMESPACE).getOrComputeIfAbsent(LastCheck.class, k -> new LastCheck(),
                LastCheck.class);
    }

    @Override
    public void afterAll(ExtensionContext context) throws InterruptedException {
        check("the end of " + context.getDisplayName());
    }

    /** Collects garbage, has the detectors report what was collected unreleased, and fails if anything was. */
    static void check(String when) throws InterruptedException {
        if (!LeakReports.detecting()) {
            return;
        }
        List<String> leaks = LeakReports.collect();
        if (!leaks.isEmpty()) {
            throw new AssertionError(leaks.size() + " leak(s) reported by Netty by " + when + ":\n"
                    + String.join("\n\n", leaks));
        }
    }

    /**
     * JVM options for a process a test starts (a real {@code tern serve}): Netty tracks every buffer there and the
     * process prints what leaked on stderr at exit, after {@link #EXIT_REPORT_HEADER} ({@link #leaksReportedAtExit}).
     */
    public static List<String> processOptions() {
        return List.of("-Dio.netty.leakDetection.level=paranoid",
                "-Dio.netty.customResourceLeakDetector=dev.tern.testing.RecordingLeakDetector",
                "-D" + LeakReports.REPORT_AT_EXIT + "=true");
    }

    /** The number of leaks a process started with {@link #processOptions()} reported on {@code stderr}; -1: none. */
    public static int leaksReportedAtExit(String stderr) {
        Matcher m = EXIT_REPORT.matcher(stderr);
        return m.find() ? Integer.parseInt(m.group(1)) : -1;
    }

    private static final class LastCheck implements AutoCloseable {
        @Override
        public void close() throws InterruptedException {
            check("the end of this JVM's test classes");
        }
    }
}
