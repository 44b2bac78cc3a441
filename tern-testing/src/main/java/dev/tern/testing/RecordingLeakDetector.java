package dev.tern.testing;

import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakTracker;

/**
 * Netty's leak detector, which also keeps each leak it reports (a buffer or other reference-counted object collected
 * without being released) for {@link NettyLeakCheck} to fail the tests with. Named by
 * {@code -Dio.netty.customResourceLeakDetector}; the build gives it to every test JVM together with
 * {@code -Dio.netty.leakDetection.level=paranoid}, so that every object is tracked, not one in 128.
 */
public final class RecordingLeakDetector<T> extends ResourceLeakDetector<T> {
    private final String resourceType;

    public RecordingLeakDetector(Class<?> resourceType, int samplingInterval, long maxActive) {
        this(resourceType, samplingInterval);
    }

    public RecordingLeakDetector(Class<?> resourceType, int samplingInterval) {
        super(resourceType, samplingInterval);
        this.resourceType = resourceType.getSimpleName();
        LeakReports.addPoller(this::poll);
    }

    /** Netty reports the leaks it found while it starts tracking another object: track one and let it go at once. */
    @SuppressWarnings("unchecked")
    private void poll() {
        Object probe = new Object();
        ResourceLeakTracker<T> tracker = track((T) probe);
        if (tracker != null) {
            tracker.close((T) probe);
        }
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

    @Override
    public String toString() {
        return "RecordingLeakDetector[" + resourceType + "]";
    }
}
