package dev.tern.transport.http;

import java.util.concurrent.ConcurrentHashMap;

/**
 * How many places of one bounded kind (legacy sessions, open listens, 2024-11-05 SSE connections) each client holds,
 * so that no client takes more than its share. A client is a key from {@link #client}. Thread-safe; a client holding
 * nothing has no entry.
 */
final class ClientShares {
    private final int share;
    private final ConcurrentHashMap<String, Held> held = new ConcurrentHashMap<>();

    /** A client's places; changed only inside the map's atomic updates. */
    private static final class Held {
        final String client;
        volatile int count;

        Held(String client) {
            this.client = client;
        }
    }

    ClientShares(int share) {
        this.share = share;
    }

    /** The key of a client: its principal, or the address it connects from when anonymous. */
    static String client(String principal, String address) {
        return principal != null ? "principal " + principal : "address " + address;
    }

    /** The key of the client of an exchange, whose principal is {@code principal} ({@code null}: anonymous). */
    static String client(String principal, HttpExchange exchange) {
        return client(principal, principal != null ? null : exchange.clientAddress());
    }

    /**
     * Takes one place for {@code client}. Returns the key to give back with {@link #release}, or {@code null}, taking
     * nothing, when the client already holds its share. The key returned is the one string the map holds for that
     * client, so that what holds a place (thousands of sessions of one client) keeps a reference, not a copy.
     */
    String tryAcquire(String client) {
        boolean[] taken = {false};
        Held h = held.compute(client, (key, places) -> {
            Held now = places == null ? new Held(key) : places;
            if (now.count < share) {
                now.count++;
                taken[0] = true;
            }
            return now;
        });
        return taken[0] ? h.client : null;
    }

    /** Gives back one place {@link #tryAcquire} took for {@code client}. */
    void release(String client) {
        boolean[] found = {false};
        held.computeIfPresent(client, (key, places) -> {
            found[0] = true;
            return --places.count <= 0 ? null : places;
        });
        assert found[0] : "a place given back that was not taken: " + client;
    }

    /** The places {@code client} holds now. */
    int held(String client) {
        Held h = held.get(client);
        return h == null ? 0 : h.count;
    }
}
