package dev.tern.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Proxy;

import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import io.netty.util.ResourceLeakTracker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionContext;

class NettyLeakCheckTest {
    /** A reference-counted thing of this test's own, tracked by a detector made as Netty makes its own. */
    static final class Handle {
    }

    private static final ResourceLeakDetector<Handle> DETECTOR =
            ResourceLeakDetectorFactory.instance().newResourceLeakDetector(Handle.class);

    @AfterEach
    void forgetReports() {
        LeakReports.drain();
    }

    @Test
    void theBuildMakesNettysDetectorsRecordingOnesThatTrackEverything() {
        assertThat(DETECTOR).isInstanceOf(RecordingLeakDetector.class);
        assertThat(ResourceLeakDetector.getLevel()).isEqualTo(ResourceLeakDetector.Level.PARANOID);
        assertThat(LeakReports.detecting()).isTrue();
    }

    @Test
    void anObjectCollectedWithoutReleaseFailsTheClassAfterIt() {
        leakOne();
        assertThatThrownBy(() -> new NettyLeakCheck().afterAll(context("SomeTest")))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("1 leak(s) reported by Netty by the end of SomeTest")
                .hasMessageContaining("Handle.release() was not called")
                .hasMessageContaining("leakOne");
    }

    @Test
    void theSameLeakMadeAgainIsReportedAgain() {
        for (int round = 0; round < 3; round++) {
            leakOne();
            assertThatThrownBy(() -> NettyLeakCheck.check("now")).hasMessageContaining("1 leak(s)");
        }
    }

    @Test
    void releasedObjectsAreNoLeak() throws Exception {
        for (int i = 0; i < 100; i++) {
            Handle handle = new Handle();
            ResourceLeakTracker<Handle> tracker = DETECTOR.track(handle);
            tracker.close(handle);
        }
        new NettyLeakCheck().afterAll(context("SomeTest"));
    }

    private static void leakOne() {
        ResourceLeakTracker<Handle> tracker = DETECTOR.track(new Handle());
        tracker.record();
    }

    private static ExtensionContext context(String name) {
        return (ExtensionContext) Proxy.newProxyInstance(ExtensionContext.class.getClassLoader(),
                new Class<?>[] {ExtensionContext.class},
                (proxy, method, args) -> method.getName().equals("getDisplayName") ? name : null);
    }
}
