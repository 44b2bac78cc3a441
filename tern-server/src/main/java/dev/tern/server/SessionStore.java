package dev.tern.server;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

/**
 * Where the state of legacy sessions is kept beyond the node serving them, so that many nodes behind a balancer serve
 * any session. The default, {@link #LOCAL}, keeps nothing: a session lives in the memory of the node that opened it,
 * and that node alone serves it. Implementations must be thread-safe; a failing store throws
 * {@link StoreUnavailableException}.
 */
public interface SessionStore {

    /** Nothing is shared: sessions live on the node that opened them. */
    SessionStore LOCAL = new SessionStore() {
        @Override
        public boolean shared() {
            return false;
        }

        @Override
        public long save(String sessionId, @Nullable String principal, LegacySessionState state, Duration ttl) {
            return 0;
        }

        @Override
        public Optional<Stored> load(String sessionId, Duration ttl) {
            return Optional.empty();
        }

        @Override
        public long touch(String sessionId, Duration ttl) {
            return 0;
        }

        @Override
        public void remove(String sessionId) {
        }
    };

    /** A stored session: who opened it, its state and the revision of that state. */
    record Stored(@Nullable String principal, LegacySessionState state, long revision) {
    }

    /** Whether other nodes see what is saved, so that a node must look here for sessions it does not hold. */
    boolean shared();

    /**
     * Saves a session's state, which then expires after {@code ttl} without a {@link #touch}; returns the new
     * revision.
     */
    long save(String sessionId, @Nullable String principal, LegacySessionState state, Duration ttl);

    /** A session's state, its expiry pushed back to {@code ttl}; empty when it expired or was removed. */
    Optional<Stored> load(String sessionId, Duration ttl);

    /**
     * Pushes a session's expiry back to {@code ttl} and returns the revision of its state (another node may have
     * changed it since), or {@code -1} when the session is gone.
     */
    long touch(String sessionId, Duration ttl);

    /**
     * {@link #touch} without waiting: the revision, or {@code -1}, or a failure with
     * {@link StoreUnavailableException}. The stage may complete on a thread of the store's own, which its callers must
     * not block; this default waits for {@link #touch} on the caller's thread.
     */
    default CompletionStage<Long> touchAsync(String sessionId, Duration ttl) {
        try {
            return CompletableFuture.completedFuture(touch(sessionId, ttl));
        } catch (StoreUnavailableException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Forgets a session, on every node. */
    void remove(String sessionId);
}
