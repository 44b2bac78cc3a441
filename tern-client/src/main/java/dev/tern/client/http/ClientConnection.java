package dev.tern.client.http;

import io.netty.channel.Channel;

/** A ready connection of the pool, carrying up to {@link #capacity()} exchanges at once. */
abstract class ClientConnection {
    final Channel channel;
    final Pool pool;
    final ConnectionInfo info;

    // guarded by the pool's lock
    int active;
    boolean listed;
    boolean usable = true;

    ClientConnection(Channel channel, Pool pool, ConnectionInfo info) {
        this.channel = channel;
        this.pool = pool;
        this.info = info;
    }

    /** How many exchanges this connection takes at once. */
    abstract int capacity();

    /** Starts an exchange; called on the connection's I/O thread. */
    abstract void start(Exchange exchange);

    /**
     * Hands an exchange to the I/O thread of this connection (the pool counted it as active already). If the
     * connection closed meanwhile, the exchange, not sent yet, goes back to the pool for another connection.
     */
    final void dispatch(Exchange exchange) {
        channel.eventLoop().execute(() -> {
            if (exchange.done()) {
                pool.release(this);
            } else if (!channel.isActive()) {
                pool.retire(this);
                pool.release(this);
                pool.submit(exchange);
            } else {
                start(exchange);
            }
        });
    }
}
