package dev.tern.transport.http;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;

/**
 * Refuses client-initiated TLS renegotiation (a CPU-exhaustion vector on TLS 1.2 that the JDK accepts by default)
 * without relying on the JVM-wide {@code jdk.tls.rejectClientInitiatedRenegotiation} flag, which is read only once per
 * JVM. Sits in front of the {@code SslHandler} and follows the TLS record headers of what the client sends: after the
 * client's ChangeCipherSpec, its next handshake record is its Finished (or, in TLS 1.3, the ClientHello answering a
 * HelloRetryRequest); any handshake record after that is a new handshake on an established connection, and the
 * connection is closed. Event-loop confined.
 */
final class RenegotiationGuard extends ChannelInboundHandlerAdapter {
    static final String NAME = "renegotiation-guard";
    private static final int CHANGE_CIPHER_SPEC = 20;
    private static final int HANDSHAKE = 22;
    private static final RateLimitedLog LOG = new RateLimitedLog();

    private final byte[] header = new byte[5];
    private int headerLength;
    private int payloadLeft;
    private boolean changeCipherSpecSeen;
    private int handshakeRecordsSinceChangeCipherSpec;
    private boolean refused;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (refused) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (msg instanceof ByteBuf buf && !scan(buf)) {
            refused = true;
            ReferenceCountUtil.release(msg);
            LOG.log("Closed a TLS connection from {0}: client-initiated renegotiation is not allowed",
                    ctx.channel().remoteAddress());
            ctx.channel().config().setAutoRead(false);
            ctx.close();
            return;
        }
        super.channelRead(ctx, msg);
    }

    /** Follows the record headers in {@code buf}; false when a renegotiation starts. */
    private boolean scan(ByteBuf buf) {
        int i = buf.readerIndex();
        int end = buf.writerIndex();
        while (i < end) {
            if (payloadLeft > 0) {
                int n = Math.min(payloadLeft, end - i);
                payloadLeft -= n;
                i += n;
                continue;
            }
            header[headerLength++] = buf.getByte(i++);
            if (headerLength < header.length) {
                continue;
            }
            headerLength = 0;
            int type = header[0] & 0xFF;
            payloadLeft = ((header[3] & 0xFF) << 8) | (header[4] & 0xFF);
            if (type == CHANGE_CIPHER_SPEC) {
                changeCipherSpecSeen = true;
            } else if (type == HANDSHAKE && changeCipherSpecSeen && ++handshakeRecordsSinceChangeCipherSpec > 1) {
                return false;
            }
        }
        return true;
    }
}
