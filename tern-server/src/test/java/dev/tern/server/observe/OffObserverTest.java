package dev.tern.server.observe;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;

import org.junit.jupiter.api.Test;

class OffObserverTest {

    @Test
    void anObserverThatIsOffHandsOutOneSharedObservationForEveryRequestAndSession() {
        McpObserver off = McpObserver.off();

        assertThat(off.enabled()).isFalse();
        assertThat(off.request(Transport.HTTP_1_1, 1)).isSameAs(off.request(Transport.STDIO, 2));
        assertThat(off.session(Transport.HTTP_2, "2025-11-25", 3)).isSameAs(off.session(Transport.HTTP_1_1, null, 4));
    }

    @Test
    void observingARequestWithObservabilityOffAllocatesNothing() {
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        McpObserver off = McpObserver.off();
        String method = "tools/call";
        String tool = "get_user";
        for (int i = 0; i < 20_000; i++) {
            observeOne(off, method, tool, i);
        }

        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 100_000; i++) {
            observeOne(off, method, tool, i);
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;

        assertThat(allocated).as("bytes allocated by 100,000 observed requests").isLessThan(4_096);
    }

    private static void observeOne(McpObserver observer, String method, String tool, long i) {
        RequestObservation o = observer.request(Transport.HTTP_1_1, i)
                .clientAddress("127.0.0.1")
                .parsed(i + 1, method, tool)
                .requestId(i)
                .protocolVersion("2026-07-28")
                .era(Era.STATELESS);
        RequestObservation.Scope scope = o.handlerStarted(i + 2);
        o.handlerEnded(i + 3);
        scope.close();
        o.encodingStarted(i + 4).end(i + 5);
    }
}
