package dev.tern.transport.http;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.netty.util.concurrent.EventExecutor;

/**
 * The exchanges admitted and not done yet, so that a shutdown can end them. Each event loop keeps a set of its own
 * exchanges that only that loop touches, so admitting a request shares nothing with the other loops.
 */
final class OpenExchanges {
    private final Map<EventExecutor, Set<HttpExchange>> byLoop = new ConcurrentHashMap<>();

    /** Keeps {@code exchange} until it is done. */
    void add(HttpExchange exchange) {
        EventExecutor loop = exchange.executor();
        if (!loop.inEventLoop()) {
            onLoop(loop, () -> add(exchange));
            return;
        }
        Set<HttpExchange> own = byLoop.computeIfAbsent(loop, l -> new HashSet<>());
        own.add(exchange);
        // Runs at once, and removes it again, if the exchange was done before it could be added.
        exchange.onDone(() -> {
            if (loop.inEventLoop()) {
                own.remove(exchange);
            } else {
                onLoop(loop, () -> own.remove(exchange));
            }
        });
    }

    /** The exchanges open now, each loop's read on that loop; a loop that does not answer in a second is left out. */
    List<HttpExchange> snapshot() {
        List<HttpExchange> all = new ArrayList<>();
        byLoop.forEach((loop, open) -> {
            if (loop.inEventLoop()) {
                all.addAll(open);
                return;
            }
            try {
                all.addAll(loop.submit(() -> List.copyOf(open)).get(1, TimeUnit.SECONDS));
            } catch (ExecutionException | TimeoutException | RejectedExecutionException e) {
                // a loop that cannot answer is closing its connections itself
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        return all;
    }

    /** Runs {@code action} on {@code loop}; not at all once the loop has shut down, as its connections are gone. */
    private static void onLoop(EventExecutor loop, Runnable action) {
        try {
            loop.execute(action);
        } catch (RejectedExecutionException shutDown) {
            // nothing is left to keep track of
        }
    }
}
