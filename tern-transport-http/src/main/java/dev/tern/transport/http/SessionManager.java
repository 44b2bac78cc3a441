package dev.tern.transport.http;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;

import dev.tern.protocol.Decoded;
import dev.tern.protocol.JsonRpcCodec;
import dev.tern.protocol.JsonRpcResponse;
import dev.tern.server.McpServer;
import dev.tern.server.NotificationBus;
import dev.tern.server.SessionStore;

/**
 * The live legacy sessions: ids from {@link SessionIds} (random, signed when keys are set), a bound on how many exist, and expiry
 * of sessions idle longer than the timeout, so sessions clients never delete do not leak. With a shared
 * {@link SessionStore}, a session another node opened is taken up from the store on its first request here, every
 * request checks that it still exists and takes changes other nodes made, and a node that lets an idle session go or
 * shuts down forgets only its own copy. Thread-safe.
 */
final class SessionManager {
    private static final System.Logger LOG = System.getLogger("dev.tern.transport.http");
    private static final java.util.concurrent.atomic.AtomicReferenceFieldUpdater<Session, SessionTouch> TOUCHING =
            java.util.concurrent.atomic.AtomicReferenceFieldUpdater.newUpdater(Session.class, SessionTouch.class,
                    "touching");
    private static final int MAX_ID_LENGTH = 128;
    private static final long SWEEP_ON_DEMAND_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(1);

    private final McpServer server;
    private final JsonRpcCodec codec;
    private final int maxSessions;
    private final ClientShares shares;
    private final java.util.concurrent.atomic.AtomicLong lastSweepOnDemand =
            new java.util.concurrent.atomic.AtomicLong(System.nanoTime() - SWEEP_ON_DEMAND_NANOS);
    private final Duration idleTimeout;
    private final SessionIds ids;
    private final Map<String, Session> sessions = new ConcurrentHashMap<>();

    private final dev.tern.server.EventStore events;
    private final SessionStore store;
    private final boolean serverTiming;

    SessionManager(McpServer server, JsonRpcCodec codec, int maxSessions, int maxSessionsPerClient,
            Duration idleTimeout, dev.tern.server.EventStore events, SessionStore store, List<byte[]> idKeys,
            boolean serverTiming) {
        this.ids = new SessionIds(idKeys);
        this.shares = new ClientShares(maxSessionsPerClient);
        this.events = events;
        this.store = store;
        this.serverTiming = serverTiming;
        this.server = server;
        this.codec = codec;
        this.maxSessions = maxSessions;
        this.idleTimeout = idleTimeout;
        if (store.shared()) {
            server.notificationBus().subscribe(notice -> {
                if (notice instanceof NotificationBus.SessionChanged changed) {
                    changedElsewhere(changed.sessionId());
                } else if (notice instanceof NotificationBus.ClientResponse response) {
                    answeredElsewhere(response);
                }
            });
        }
    }

    /**
     * Another node changed or ended a session: this node's copy takes that up now rather than on its next request
     * here, since a client may only be listening on this node (its GET stream) for what its subscriptions bring.
     */
    private void changedElsewhere(String id) {
        Session s = sessions.get(id);
        if (s == null) {
            return;
        }
        try {
            current(s);
        } catch (dev.tern.server.StoreUnavailableException e) {
            s.revision = -1; // taken up on the session's next request here, when the store answers again
        }
    }

    /**
     * A client's response to a request the server sent it: to the channel waiting for it, or, when none waits on this
     * node, to the other nodes, one of which sent the request.
     */
    void response(Session session, JsonRpcResponse response) {
        if (!store.shared() || session.channel().awaits(response.id())) {
            session.channel().receive(response);
        } else {
            server.notificationBus().publish(new NotificationBus.ClientResponse(session.id, codec.encode(response)));
        }
    }

    private void answeredElsewhere(NotificationBus.ClientResponse notice) {
        Session s = sessions.get(notice.sessionId());
        if (s != null && codec.decode(notice.message()) instanceof Decoded.Single single
                && single.message() instanceof JsonRpcResponse response && s.channel().awaits(response.id())) {
            s.channel().receive(response);
        }
    }

    /** Tells the other nodes that a session's shared state changed or that it ended. */
    void publishChanged(Session session) {
        if (store.shared()) {
            server.notificationBus().publish(new NotificationBus.SessionChanged(session.id));
        }
    }

    /**
     * What {@link #create} did: the new session, or {@code null} with why: the client holds its share of the sessions
     * ({@code shareUsed}), or the server holds all it may.
     */
    record Opened(Session session, boolean shareUsed) {
        static final Opened SHARE_USED = new Opened(null, true);
        static final Opened SERVER_FULL = new Opened(null, false);
    }

    /**
     * A new session of {@code principal}, taking a place of {@code client}'s share (a {@link ClientShares} key). When
     * the client or the server has no place left, idle sessions are expired first (at most once a second: each such
     * sweep walks every session).
     */
    Opened create(String principal, String client) {
        String held = shares.tryAcquire(client);
        if (held == null && sweepOnDemand()) {
            held = shares.tryAcquire(client);
        }
        if (held == null) {
            return Opened.SHARE_USED;
        }
        if (sessions.size() >= maxSessions && !(sweepOnDemand() && sessions.size() < maxSessions)) {
            shares.release(held);
            return Opened.SERVER_FULL;
        }
        String id = ids.next();
        Session session;
        try {
            session = new Session(id, principal, held, server, codec, events, store, idleTimeout, serverTiming);
        } catch (RuntimeException closed) { // the server closed meanwhile
            shares.release(held);
            throw closed;
        }
        sessions.put(id, session);
        return new Opened(session, false);
    }

    /** Expires idle sessions now unless a request did so within the last second; whether it did. */
    private boolean sweepOnDemand() {
        long now = System.nanoTime();
        long last = lastSweepOnDemand.get();
        if (now - last < SWEEP_ON_DEMAND_NANOS || !lastSweepOnDemand.compareAndSet(last, now)) {
            return false;
        }
        expireIdle();
        return true;
    }

    /** What a lookup found, handed on the request's event loop. */
    interface Found {
        /** The session, or {@code null} when none exists that the request's principal may use. */
        void found(Session session);
    }

    /**
     * Hands {@code found} the session {@code id} names, if it exists and {@code principal} opened it, or runs
     * {@code unavailable} when the shared store cannot answer; either on the exchange's event loop. With a shared store,
     * one another node opened is taken up here, taking a place of the requesting client's share, and one this node
     * holds is checked against the store without holding the event loop while the store answers.
     */
    void find(String id, String principal, HttpExchange exchange, Found found, Runnable unavailable) {
        Session s = sessions.get(id);
        if (s == null) {
            Session taken;
            try {
                taken = store.shared() && ids.plausible(id) ? takeUp(id, principal, exchange) : null;
            } catch (dev.tern.server.StoreUnavailableException e) {
                unavailable.run();
                return;
            }
            found.found(taken);
            return;
        }
        s.touch();
        if (!store.shared()) {
            found.found(java.util.Objects.equals(s.principal, principal) ? s : null);
            return;
        }
        Executor loop = exchange.executor();
        awaitTouch(s, loop, (revision, failure) -> {
            Runnable next = () -> {
                Throwable cause = failure instanceof java.util.concurrent.CompletionException c && c.getCause() != null
                        ? c.getCause() : failure;
                Session current = null;
                if (cause == null) {
                    try {
                        current = current(s, revision) && java.util.Objects.equals(s.principal, principal) ? s : null;
                    } catch (RuntimeException e) {
                        cause = e;
                    }
                }
                if (cause != null) {
                    if (!(cause instanceof dev.tern.server.StoreUnavailableException)) {
                        LOG.log(System.Logger.Level.WARNING, "A session could not be checked against the store", cause);
                    }
                    unavailable.run();
                    return;
                }
                found.found(current);
            };
            if (loop instanceof io.netty.util.concurrent.EventExecutor e && e.inEventLoop()) {
                next.run();
            } else {
                HttpExchange.later(loop, next);
            }
        });
    }

    /**
     * Has {@code waiter} told what a touch of the store answers for {@code s}: requests of one session that arrive
     * while a touch waits to be sent share it, and it is sent once {@code loop} has served what it read in this turn.
     */
    private void awaitTouch(Session s, Executor loop, SessionTouch.Waiter waiter) {
        while (true) {
            SessionTouch pending = s.touching;
            if (pending != null && pending.join(waiter)) {
                return;
            }
            SessionTouch fresh = new SessionTouch(waiter);
            if (TOUCHING.compareAndSet(s, pending, fresh)) {
                HttpExchange.later(loop, () -> send(s, fresh));
                return;
            }
        }
    }

    private void send(Session s, SessionTouch touch) {
        List<SessionTouch.Waiter> waiters = touch.send();
        TOUCHING.compareAndSet(s, touch, null);
        store.touchAsync(s.id, idleTimeout).whenComplete((revision, failure) -> {
            for (SessionTouch.Waiter w : waiters) {
                try {
                    w.touched(revision == null ? -1 : revision, failure);
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "A request could not go on after its session's touch", e);
                }
            }
        });
    }

    /** Whether a session this node holds still exists in the store; takes what other nodes changed. */
    private boolean current(Session s) {
        return current(s, store.touch(s.id, idleTimeout));
    }

    /** {@link #current(Session)} with the revision a touch of the store returned. */
    private boolean current(Session s, long revision) {
        if (revision < 0) {
            drop(s, null);
            return false;
        }
        if (revision != s.revision) {
            SessionStore.Stored stored = store.load(s.id, idleTimeout).orElse(null);
            if (stored == null) {
                drop(s, null);
                return false;
            }
            s.channel().restore(stored.state());
            s.revision = stored.revision();
        }
        return true;
    }

    private Session takeUp(String id, String principal, HttpExchange exchange) {
        SessionStore.Stored stored = store.load(id, idleTimeout).orElse(null);
        if (stored == null || !java.util.Objects.equals(stored.principal(), principal)) {
            return null;
        }
        String held = shares.tryAcquire(ClientShares.client(principal, exchange));
        if (held == null) {
            return null;
        }
        if (sessions.size() >= maxSessions && !(sweepOnDemand() && sessions.size() < maxSessions)) {
            shares.release(held);
            return null;
        }
        Session session;
        try {
            session = new Session(id, principal, held, server, codec, events, store, idleTimeout, serverTiming);
            session.channel().restore(stored.state());
        } catch (RuntimeException closed) { // the server closed meanwhile
            shares.release(held);
            throw closed;
        }
        session.revision = stored.revision();
        Session raced = sessions.putIfAbsent(id, session);
        if (raced != null) {
            shares.release(held);
            session.close(null);
            return raced;
        }
        return session;
    }

    /** Ends a session everywhere: its state and its events are forgotten. */
    void remove(Session session, Duration retry) {
        if (drop(session, retry)) {
            try {
                store.remove(session.id);
                publishChanged(session);
            } finally {
                events.removeSession(session.id);
            }
        }
    }

    /**
     * Forgets this node's copy of a session, as its expiry or a shutdown does; without a shared store that is the
     * session itself, events and all.
     */
    private boolean drop(Session session, Duration retry) {
        if (!sessions.remove(session.id, session)) {
            return false;
        }
        shares.release(session.client);
        session.close(retry);
        if (!store.shared()) {
            events.removeSession(session.id);
            var observation = session.observation;
            if (observation != null) {
                observation.end(System.nanoTime());
            }
        }
        return true;
    }

    /** Whether a session id is well-formed: visible ASCII, not too long. */
    static boolean wellFormed(String id) {
        if (id.isEmpty() || id.length() > MAX_ID_LENGTH) {
            return false;
        }
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            if (c < 0x21 || c > 0x7E) {
                return false;
            }
        }
        return true;
    }

    void expireIdle() {
        long limit = idleTimeout.toNanos();
        for (Session s : sessions.values()) {
            if (s.idleNanos() > limit && s.channel().inFlight() == 0) {
                drop(s, null);
            }
        }
    }

    int size() {
        return sessions.size();
    }

    void closeAll(Duration retry) {
        for (Session s : sessions.values()) {
            drop(s, retry);
        }
    }
}
