package dev.tern.testing;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakTracker;
import io.netty.util.concurrent.FastThreadLocalThread;

/**
 * Netty's leak detector, which also keeps each leak it reports (a buffer or other reference-counted object collected
 * without being released) for {@link NettyLeakCheck} to fail the tests with. Named by
 * {@code -Dio.netty.customResourceLeakDetector}; the build gives it to every test JVM together with
 * {@code -Dio.netty.leakDetection.level=paranoid}, so that every object is tracked, not one in 128.
 */
public final class RecordingLeakDetector<T> extends ResourceLeakDetector<T> {
    private static final AtomicLong TRACKED = new AtomicLong();
    private static final long EXIT_WAIT_NANOS = TimeUnit.SECONDS.toNanos(5);

    static {
        LeakReports.beforeExitReport(RecordingLeakDetector::awaitNettyThreadsEnd);
    }

    private final String typeName;

    public RecordingLeakDetector(Class<?> resourceType, int samplingInterval, long maxActive) {
        this(resourceType, samplingInterval);
    }

    public RecordingLeakDetector(Class<?> resourceType, int samplingInterval) {
        super(resourceType, samplingInterval);
        this.typeName = resourceType.getSimpleName();
        LeakReports.addPoller(this::poll);
    }

    /** Netty reports the leaks it found when it starts tracking another object: track one and let it go at once. */
    @SuppressWarnings("unchecked")
    private void poll() {
        T probe = (T) new Object();
        ResourceLeakTracker<T> tracker = trackForcibly(probe);
        tracker.close(probe);
    }

    /**
     * Numbers each tracked object: Netty reports a leak only if no leak with the same records was reported before in
     * this JVM, and leaks made twice by the same code (in two test classes, say) would have the same records.
     */
    @Override
    protected Object getInitialHint(String resourceType) {
        return "tracked object #" + TRACKED.incrementAndGet();
    }

    @Override
    protected boolean needReport() {
        return true;
    }

    @Override
    protected void reportTracedLeak(String type, String records) {
        LeakReports.add("LEAK: " + type + ".release() was not called before it was garbage-collected." + records);
        super.reportTracedLeak(type, records);
    }

    @Override
    protected void reportUntracedLeak(String type) {
        LeakReports.add("LEAK: " + type + ".release() was not called before it was garbage-collected.");
        super.reportUntracedLeak(type);
    }

    /**
     * A connection still open holds its buffers (a leaked one included) until its event loop closes it, and
     * {@code tern serve}'s shutdown hook (the thread {@code tern-shutdown}; the interop server's has the same name)
     * still writes after the event loops end: the report at a process's exit waits, 5 s at most, for Netty's threads
     * and that hook to end.
     */
    private static void awaitNettyThreadsEnd() {
        long deadline = System.nanoTime() + EXIT_WAIT_NANOS;
        while (System.nanoTime() < deadline && Thread.getAllStackTraces().keySet().stream()
                .anyMatch(t -> t != Thread.currentThread() && t.isAlive()
                        && (t instanceof FastThreadLocalThread || t.getName().equals("tern-shutdown")))) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    @Override
    public String toString() {
        return "RecordingLeakDetector[" + typeName + "]";
    }
}
