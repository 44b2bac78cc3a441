package dev.tern.server;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Coalesces the list changes of a window ({@link ServerConfig#listChangedDelay()}) into one call per kind, so that a
 * burst of registrations sends each client one notification per list.
 */
final class ListChanges {
    private final McpServer server;
    private final Consumer<FeatureRegistry.Kind> notify;
    private final AtomicInteger changedKinds = new AtomicInteger();

    ListChanges(McpServer server, Consumer<FeatureRegistry.Kind> notify) {
        this.server = server;
        this.notify = notify;
    }

    void changed(FeatureRegistry.Kind kind) {
        if (changedKinds.getAndUpdate(bits -> bits | 1 << kind.ordinal()) == 0) {
            server.scheduler().schedule(this::flush, server.config().listChangedDelay().toNanos(),
                    TimeUnit.NANOSECONDS);
        }
    }

    private void flush() {
        int changed = changedKinds.getAndSet(0);
        for (FeatureRegistry.Kind kind : FeatureRegistry.Kind.values()) {
            if ((changed & (1 << kind.ordinal())) != 0) {
                notify.accept(kind);
            }
        }
    }
}
