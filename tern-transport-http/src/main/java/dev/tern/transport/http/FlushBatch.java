package dev.tern.transport.http;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.FastThreadLocal;

/**
 * The exchanges an event loop wrote to since it last ran its tasks, flushed together once it has handled every
 * connection that was ready. An event loop reads the ready connections one after another; flushing each answer as it
 * is written wakes a client that has already taken the previous one and gone back to waiting, once per answer, and
 * that wake-up costs the server a few microseconds of kernel time (about half of a small answer's send on a
 * virtual machine). Flushed at the end of the loop's turn, answers arrive together and a waiting client is woken
 * once. An answer waits at most for the rest of the turn: at low load a turn holds one request, and the flush follows
 * its write at once.
 */
final class FlushBatch implements Runnable {
    private static final FastThreadLocal<FlushBatch> OF_THREAD = new FastThreadLocal<>() {
        @Override
        protected FlushBatch initialValue() {
            return new FlushBatch();
        }
    };

    private final List<HttpExchange> pending = new ArrayList<>();
    private boolean scheduled;

    private FlushBatch() {
    }

    /**
     * Flushes {@code exchange} after the event loop's current turn; must be called on {@code loop}. Returns false,
     * without taking the exchange, when the loop no longer takes tasks: the caller flushes it itself.
     */
    static boolean flushAfterTurn(HttpExchange exchange, EventExecutor loop) {
        return OF_THREAD.get().add(exchange, loop);
    }

    private boolean add(HttpExchange exchange, EventExecutor loop) {
        if (!scheduled) {
            if (loop.isShuttingDown()) {
                return false;
            }
            try {
                loop.execute(this);
            } catch (RejectedExecutionException shutDown) {
                return false;
            }
            scheduled = true;
        }
        pending.add(exchange);
        return true;
    }

    @Override
    public void run() {
        // A flush may complete a write whose listener writes again: that exchange joins this list, still being walked.
        try {
            for (int i = 0; i < pending.size(); i++) {
                try {
                    pending.get(i).flushBatched();
                } catch (RuntimeException e) {
                    // one connection's failure must not leave the others unflushed
                }
            }
        } finally {
            pending.clear();
            scheduled = false;
        }
    }
}
