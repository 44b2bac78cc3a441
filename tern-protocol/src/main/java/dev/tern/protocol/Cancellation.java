package dev.tern.protocol;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;

import org.jspecify.annotations.Nullable;

/**
 * Cancellation of one in-flight request, observable by the code serving it: poll {@link #isCancelled()}, call
 * {@link #throwIfCancelled()}, or register a callback. Thread-safe; cancelling twice has no further effect.
 */
public final class Cancellation {
    private List<Runnable> callbacks = new ArrayList<>(2);
    private volatile String reason;

    public boolean isCancelled() {
        return reason != null;
    }

    /** Why the request was cancelled, or {@code null} while it was not. */
    public @Nullable String reason() {
        return reason;
    }

    public void throwIfCancelled() {
        String r = reason;
        if (r != null) {
            throw new CancellationException(r);
        }
    }

    /** Runs {@code callback} once when the request is cancelled (at once if it already is). */
    public void onCancel(Runnable callback) {
        synchronized (this) {
            if (reason == null) {
                callbacks.add(callback);
                return;
            }
        }
        callback.run();
    }

    /** Returns true if this call cancelled the request. */
    public boolean cancel(String why) {
        List<Runnable> toRun;
        synchronized (this) {
            if (reason != null) {
                return false;
            }
            reason = why == null ? "cancelled" : why;
            toRun = callbacks;
            callbacks = List.of();
        }
        for (Runnable r : toRun) {
            try {
                r.run();
            } catch (RuntimeException ignored) {
                // a failing callback must not keep the others from running
            }
        }
        return true;
    }
}
