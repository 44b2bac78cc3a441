package dev.tern.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The leaks Netty's leak detector reported in this JVM ({@link RecordingLeakDetector}), kept apart from Netty's
 * types so that a test without Netty on its class path can ask for them too (there are none). A process a test
 * starts (a real {@code tern serve}) given {@code -Dtern.leakReportAtExit=true} prints the leaks found by its end on
 * its stderr, where that test looks for them.
 */
final class LeakReports {
    static final String REPORT_AT_EXIT = "tern.leakReportAtExit";
    private static final int COLLECTIONS = 3;
    private static final Queue<String> REPORTS = new ConcurrentLinkedQueue<>();
    private static final List<Runnable> POLLERS = new CopyOnWriteArrayList<>();
    private static final AtomicBoolean EXIT_REPORT = new AtomicBoolean();
    private static volatile Runnable beforeExitReport = () -> { };

    private LeakReports() {
    }

    static void add(String report) {
        REPORTS.add(report);
    }

    /** What the report at exit waits for first: the process's own shutdown to let go of what it still holds. */
    static void beforeExitReport(Runnable wait) {
        beforeExitReport = wait;
    }

    static void addPoller(Runnable poller) {
        POLLERS.add(poller);
        if (Boolean.getBoolean(REPORT_AT_EXIT) && EXIT_REPORT.compareAndSet(false, true)) {
            try {
                Runtime.getRuntime().addShutdownHook(new Thread(LeakReports::printAtExit, "leak-report"));
            } catch (IllegalStateException shuttingDown) {
                // the first buffer of a process that is already exiting: nothing to report on
            }
        }
    }

    /** Whether any leak detector was made in this JVM: whether Netty tracks its objects here at all. */
    static boolean detecting() {
        return !POLLERS.isEmpty();
    }

    /** Collects garbage a few times, has the detectors report what was collected unreleased, and takes the reports. */
    static List<String> collect() throws InterruptedException {
        for (int i = 0; i < COLLECTIONS; i++) {
            System.gc();
            Thread.sleep(20);
            POLLERS.forEach(Runnable::run);
        }
        return drain();
    }

    /** The reports so far, taken out. */
    static List<String> drain() {
        List<String> drained = new ArrayList<>();
        for (String r; (r = REPORTS.poll()) != null; ) {
            drained.add(r);
        }
        return drained;
    }

    /**
     * Prints {@link NettyLeakCheck#EXIT_REPORT_HEADER} and the number of leaks found, then each report: the line a
     * test looks for, so that a report that did not run is not taken for one that found nothing.
     */
    private static void printAtExit() {
        List<String> leaks = List.of();
        try {
            beforeExitReport.run();
            leaks = collect();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        System.err.println(NettyLeakCheck.EXIT_REPORT_HEADER + leaks.size() + " leak(s)");
        leaks.forEach(System.err::println);
        System.err.flush();
    }
}
