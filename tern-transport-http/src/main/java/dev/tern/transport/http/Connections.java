package dev.tern.transport.http;

import java.net.InetAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.GlobalEventExecutor;

/**
 * Counts open connections, in total and per client address, and closes a connection at once when it would go over
 * either bound, so a flood of idle or half-open connections from one address cannot use up the server's file
 * descriptors or shut out other clients. Keeps the open connections so a shutdown can reach them. Thread-safe; one
 * instance is shared by every connection of a transport.
 */
@ChannelHandler.Sharable
final class Connections extends ChannelInboundHandlerAdapter {
    private static final AttributeKey<InetAddress> COUNTED = AttributeKey.valueOf("tern.counted");

    private final int maxTotal;
    private final int maxPerAddress;
    private final AtomicInteger total = new AtomicInteger();
    private final ConcurrentHashMap<InetAddress, Integer> perAddress = new ConcurrentHashMap<>();
    private final ChannelGroup open = new DefaultChannelGroup("tern-http", GlobalEventExecutor.INSTANCE);
    private final RateLimitedLog refused = new RateLimitedLog();

    Connections(int maxTotal, int maxPerAddress) {
        this.maxTotal = maxTotal;
        this.maxPerAddress = maxPerAddress;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        InetAddress address = ClientAddress.of(ctx.channel().remoteAddress());
        if (total.incrementAndGet() > maxTotal) {
            total.decrementAndGet();
            refuse(ctx, "the server has " + maxTotal + " connections open");
            return;
        }
        int[] now = new int[1];
        perAddress.compute(address, (a, n) -> now[0] = (n == null ? 0 : n) + 1);
        if (now[0] > maxPerAddress) {
            decrement(address);
            total.decrementAndGet();
            refuse(ctx, ClientAddress.describe(address) + " has " + maxPerAddress + " connections open");
            return;
        }
        ctx.channel().attr(COUNTED).set(address);
        open.add(ctx.channel());
        super.channelActive(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        InetAddress address = ctx.channel().attr(COUNTED).getAndSet(null);
        if (address != null) {
            total.decrementAndGet();
            decrement(address);
            super.channelInactive(ctx);
        }
    }

    private void decrement(InetAddress address) {
        perAddress.computeIfPresent(address, (a, n) -> n <= 1 ? null : n - 1);
    }

    private void refuse(ChannelHandlerContext ctx, String why) {
        refused.log("Refused a connection from {0}: {1}", ctx.channel().remoteAddress(), why);
        ctx.channel().config().setAutoRead(false);
        ctx.close();
    }

    /**
     * The address {@code channel}'s connection is counted by (an HTTP/2 stream's is its connection's), as counted when
     * it opened; worked out again for a connection that was not counted, or is closed.
     */
    static InetAddress countedAddress(Channel channel) {
        Channel connection = channel instanceof Http2StreamChannel stream ? stream.parent() : channel;
        InetAddress counted = connection.attr(COUNTED).get();
        return counted != null ? counted : ClientAddress.of(connection.remoteAddress());
    }

    /** Open connections right now. */
    int count() {
        return total.get();
    }

    ChannelGroup open() {
        return open;
    }

    /** The connections from one address. */
    int count(InetAddress address) {
        return perAddress.getOrDefault(address, 0);
    }
}
