package dev.tern.transport.http;

import java.util.ArrayList;
import java.util.List;

/**
 * One touch of a shared session store that the requests of one session share: each request that joins before it is
 * sent is answered by it, because the store runs it after they all arrived, so the revision it returns is as new as
 * each of them needs. Thread-safe.
 */
final class SessionTouch {

    /** A request waiting for the touch: the revision it returned, or why it failed. */
    interface Waiter {
        void touched(long revision, Throwable failure);
    }

    private final List<Waiter> waiters = new ArrayList<>(2);
    private boolean sent;

    SessionTouch(Waiter first) {
        waiters.add(first);
    }

    /** Adds a waiter unless the touch has been sent already; whether it did. */
    synchronized boolean join(Waiter waiter) {
        if (sent) {
            return false;
        }
        waiters.add(waiter);
        return true;
    }

    /** The waiters, as the touch is sent: none joins any more. */
    synchronized List<Waiter> send() {
        sent = true;
        return waiters;
    }
}
