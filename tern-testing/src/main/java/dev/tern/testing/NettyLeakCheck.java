package dev.tern.testing;

import java.util.List;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test class after which Netty reported a leak: a buffer (or another reference-counted object) that was
 * garbage-collected without being released. After the class's own clean-up it collects garbage and has each
 * detector look at what was collected; a leak of an earlier class still unreported shows here at the latest.
 * Registered for every test class by JUnit's extension autodetection (the build switches it on); does nothing where
 * Netty's {@link RecordingLeakDetector} is not in use.
 */
public final class NettyLeakCheck implements AfterAllCallback {
    private static final int COLLECTIONS = 3;

    @Override
    public void afterAll(ExtensionContext context) throws InterruptedException {
        if (!LeakReports.detecting()) {
            return;
        }
        for (int i = 0; i < COLLECTIONS; i++) {
            System.gc();
            Thread.sleep(20);
            LeakReports.poll();
        }
        List<String> leaks = LeakReports.drain();
        if (!leaks.isEmpty()) {
            throw new AssertionError(leaks.size() + " leak(s) reported by Netty by the end of "
                    + context.getDisplayName() + ":\n" + String.join("\n\n", leaks));
        }
    }
}
