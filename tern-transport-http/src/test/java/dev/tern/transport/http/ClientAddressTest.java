package dev.tern.transport.http;

import java.net.InetAddress;
import java.net.InetSocketAddress;

import io.netty.channel.local.LocalAddress;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ClientAddressTest {

    private static InetAddress counted(String address) throws Exception {
        return ClientAddress.of(new InetSocketAddress(InetAddress.getByName(address), 4321));
    }

    @Test
    void anIpv4ClientIsCountedByItsAddress() throws Exception {
        assertThat(counted("192.0.2.17")).isEqualTo(InetAddress.getByName("192.0.2.17"));
        assertThat(ClientAddress.describe(counted("192.0.2.17"))).isEqualTo("192.0.2.17");
        assertThat(counted("::ffff:192.0.2.17")).as("IPv4-mapped").isEqualTo(InetAddress.getByName("192.0.2.17"));
    }

    @Test
    void aGlobalIpv6ClientIsCountedByItsSlash64() throws Exception {
        InetAddress one = counted("2001:db8:1:2:aaaa:bbbb:cccc:dddd");
        InetAddress other = counted("2001:db8:1:2::9");
        assertThat(one).isEqualTo(other).isEqualTo(InetAddress.getByName("2001:db8:1:2::"));
        assertThat(counted("2001:db8:1:3::9")).isNotEqualTo(one);
        assertThat(ClientAddress.describe(one)).isEqualTo("2001:db8:1:2::/64");
    }

    @Test
    void loopbackAndLinkLocalIpv6AreCountedAsThemselves() throws Exception {
        assertThat(counted("::1")).isEqualTo(InetAddress.getByName("::1"));
        assertThat(ClientAddress.describe(counted("::1"))).isEqualTo("0:0:0:0:0:0:0:1");
        assertThat(counted("fe80::1:2")).isEqualTo(InetAddress.getByName("fe80::1:2"));
    }

    @Test
    void whatIsNotAnIpSocketAddressCountsAsLoopback() {
        assertThat(ClientAddress.of(new LocalAddress("in-process"))).isEqualTo(InetAddress.getLoopbackAddress());
        assertThat(ClientAddress.of(null)).isEqualTo(InetAddress.getLoopbackAddress());
    }
}
