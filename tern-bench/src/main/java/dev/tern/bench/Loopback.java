package dev.tern.bench;

import java.net.InetAddress;
import java.net.UnknownHostException;

/** The source addresses the bench's many clients connect from: Linux routes all of 127.0.0.0/8 to the loopback. */
final class Loopback {
    private Loopback() {
    }

    /** The loopback address that stands for the {@code n}th client: 127.0.0.2 and up. */
    static InetAddress clientAddress(int n) {
        try {
            return InetAddress.getByAddress(new byte[] {127, 0, (byte) (n / 250), (byte) (2 + n % 250)});
        } catch (UnknownHostException impossible) {
            throw new IllegalStateException(impossible);
        }
    }
}
