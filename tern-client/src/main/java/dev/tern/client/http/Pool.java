package dev.tern.client.http;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The connections of one engine and the exchanges waiting for room on them. HTTP/1.1 connections take one exchange
 * at a time; HTTP/2 ones as many as their stream limit. A new connection is opened only while the waiting exchanges
 * outnumber what the connections being opened will take, up to the engine's maximum.
 */
final class Pool {
    interface Connector {
        /** Opens a connection and reports back through {@link #connected} or {@link #connectFailed}. */
        void connect(Pool pool);
    }

    private final int maxConnections;
    private final boolean multiplexed;
    private final Connector connector;
    private final ConnectionListener listener;
    private final ArrayDeque<Exchange> waiting = new ArrayDeque<>();
    private final ArrayDeque<ClientConnection> available = new ArrayDeque<>();
    private final List<ClientConnection> connections = new ArrayList<>();
    private int connecting;
    private boolean closed;

    Pool(int maxConnections, boolean multiplexed, Connector connector, ConnectionListener listener) {
        this.maxConnections = maxConnections;
        this.multiplexed = multiplexed;
        this.connector = connector;
        this.listener = listener;
    }

    void submit(Exchange exchange) {
        ClientConnection target = null;
        boolean connect = false;
        boolean rejected;
        synchronized (this) {
            rejected = closed;
            if (!rejected) {
                target = take();
                if (target == null) {
                    waiting.add(exchange);
                    connect = wantsConnection();
                    if (connect) {
                        connecting++;
                    }
                }
            }
        }
        if (rejected) {
            exchange.fail(new HttpClientException("the HTTP client is closed"));
        } else if (target != null) {
            target.dispatch(exchange);
        } else if (connect) {
            connector.connect(this);
        }
    }

    /** Called when an exchange on {@code connection} has finished, whatever its outcome. */
    void release(ClientConnection connection) {
        Exchange next = null;
        synchronized (this) {
            connection.active--;
            if (connection.usable && !closed) {
                next = nextWaiting();
                if (next != null) {
                    connection.active++;
                } else {
                    list(connection);
                }
            }
        }
        if (next != null) {
            connection.dispatch(next);
        }
    }

    void connected(ClientConnection connection) {
        List<Exchange> start = new ArrayList<>();
        boolean reject;
        synchronized (this) {
            connecting--;
            reject = closed;
            if (!reject) {
                connections.add(connection);
                Exchange next;
                while (connection.active < connection.capacity() && (next = nextWaiting()) != null) {
                    connection.active++;
                    start.add(next);
                }
                list(connection);
            }
        }
        if (reject) {
            connection.channel.close();
            return;
        }
        safely(() -> listener.connected(connection.info));
        for (Exchange e : start) {
            connection.dispatch(e);
        }
    }

    void connectFailed(Throwable cause) {
        List<Exchange> failed = List.of();
        synchronized (this) {
            connecting--;
            if (connections.isEmpty() && connecting == 0) {
                failed = new ArrayList<>(waiting);
                waiting.clear();
            }
        }
        safely(() -> listener.connectFailed(cause));
        for (Exchange e : failed) {
            e.fail(new HttpClientException("cannot connect: " + cause.getMessage(), cause));
        }
    }

    /** The connection takes no new exchanges (the server sent GOAWAY). */
    void retire(ClientConnection connection) {
        synchronized (this) {
            connection.usable = false;
            available.remove(connection);
        }
    }

    /** The connection has closed; its exchanges have been failed already. */
    void closed(ClientConnection connection) {
        boolean connect;
        boolean known;
        synchronized (this) {
            connection.usable = false;
            available.remove(connection);
            known = connections.remove(connection);
            connect = !closed && wantsConnection();
            if (connect) {
                connecting++;
            }
        }
        if (known) {
            safely(() -> listener.closed(connection.info));
        }
        if (connect) {
            connector.connect(this);
        }
    }

    /** The stream limit of an HTTP/2 connection changed. */
    void capacityChanged(ClientConnection connection) {
        List<Exchange> start = new ArrayList<>();
        synchronized (this) {
            if (!connection.usable || closed) {
                return;
            }
            Exchange next;
            while (connection.active < connection.capacity() && (next = nextWaiting()) != null) {
                connection.active++;
                start.add(next);
            }
            if (connection.active >= connection.capacity()) {
                available.remove(connection);
                connection.listed = false;
            } else {
                list(connection);
            }
        }
        for (Exchange e : start) {
            connection.dispatch(e);
        }
    }

    List<ClientConnection> close() {
        List<Exchange> failed;
        List<ClientConnection> open;
        synchronized (this) {
            closed = true;
            failed = new ArrayList<>(waiting);
            waiting.clear();
            available.clear();
            open = new ArrayList<>(connections);
        }
        for (Exchange e : failed) {
            e.fail(new HttpClientException("the HTTP client is closed"));
        }
        return open;
    }

    synchronized int connectionCount() {
        return connections.size();
    }

    private ClientConnection take() {
        ClientConnection c = available.peekFirst();
        if (c == null) {
            return null;
        }
        c.active++;
        if (c.active >= c.capacity()) {
            available.pollFirst();
            c.listed = false;
        }
        return c;
    }

    private void list(ClientConnection connection) {
        if (!connection.listed && connection.usable && connection.active < connection.capacity()) {
            connection.listed = true;
            available.addLast(connection);
        }
    }

    private Exchange nextWaiting() {
        Exchange e;
        while ((e = waiting.poll()) != null) {
            if (!e.done()) {
                return e;
            }
        }
        return null;
    }

    private boolean wantsConnection() {
        if (connections.size() + connecting >= maxConnections) {
            return false;
        }
        if (multiplexed) {
            return connecting == 0;
        }
        return waiting.size() > connecting;
    }

    private static void safely(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            // a listener's failure must not break the pool
        }
    }
}
