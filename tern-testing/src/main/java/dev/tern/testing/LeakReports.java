package dev.tern.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The leaks Netty's leak detector reported in this JVM ({@link RecordingLeakDetector}), kept apart from Netty's
 * types so that a test without Netty on its class path can ask for them too (there are none).
 */
final class LeakReports {
    private static final int COLLECTIONS = 3;
    private static final Queue<String> REPORTS = new ConcurrentLinkedQueue<>();
    private static final List<Runnable> POLLERS = new CopyOnWriteArrayList<>();

    private LeakReports() {
    }

    static void add(String report) {
        REPORTS.add(report);
    }

    static void addPoller(Runnable poller) {
        POLLERS.add(poller);
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
}
