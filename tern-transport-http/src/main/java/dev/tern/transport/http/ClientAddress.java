package dev.tern.transport.http;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;

/**
 * The address a client is counted by for the per-client bounds (connections per address, a client's share of the
 * sessions): its IP address, or, for a global IPv6 one, its /64 network, since one host commonly has a whole /64 to
 * pick addresses from and would otherwise be counted as millions of clients.
 */
final class ClientAddress {
    private static final int IPV6_NETWORK_BYTES = 8;

    private ClientAddress() {
    }

    /** The address {@code remote} is counted by; loopback for what is not an IP socket address. */
    static InetAddress of(SocketAddress remote) {
        if (!(remote instanceof InetSocketAddress inet) || inet.getAddress() == null) {
            return InetAddress.getLoopbackAddress();
        }
        InetAddress address = inet.getAddress();
        if (!(address instanceof Inet6Address) || address.isLoopbackAddress() || address.isLinkLocalAddress()) {
            return address;
        }
        byte[] bytes = address.getAddress();
        for (int i = IPV6_NETWORK_BYTES; i < bytes.length; i++) {
            bytes[i] = 0;
        }
        try {
            return InetAddress.getByAddress(bytes);
        } catch (UnknownHostException impossible) { // 16 bytes are always an IPv6 address
            throw new IllegalStateException(impossible);
        }
    }

    /** How {@link #of} names the client in logs and keys: {@code 192.0.2.1}, {@code ::1}, {@code 2001:db8:1:2::/64}. */
    static String describe(InetAddress counted) {
        if (!(counted instanceof Inet6Address) || counted.isLoopbackAddress() || counted.isLinkLocalAddress()) {
            return counted.getHostAddress();
        }
        byte[] b = counted.getAddress();
        StringBuilder network = new StringBuilder();
        for (int i = 0; i < IPV6_NETWORK_BYTES; i += 2) {
            network.append(Integer.toHexString(((b[i] & 0xff) << 8) | (b[i + 1] & 0xff))).append(':');
        }
        return network.append(":/64").toString();
    }
}
