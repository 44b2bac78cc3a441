package dev.tern.transport.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.http.HttpClient;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.netty.channel.epoll.Epoll;

/** Each I/O transport serves both eras over HTTP/1.1 and h2c; the default takes epoll where there is one. */
class IoTransportTest {

    @ParameterizedTest
    @EnumSource(value = IoTransport.class, names = {"IO_URING", "EPOLL", "NIO"})
    void servesBothErasOverHttp1AndH2c(IoTransport transport) throws Exception {
        assumeTrue(transport.isAvailable(), () -> transport + " is not available here");
        try (Served served = new Served(b -> b.ioTransport(transport))) {
            assertThat(served.transport.ioTransport()).isEqualTo(transport);
            try (Mcp http1 = new Mcp(served.transport, HttpClient.Version.HTTP_1_1)) {
                http1.assertServes();
            }
            try (Mcp h2c = new Mcp(served.transport, HttpClient.Version.HTTP_2)) {
                h2c.assertServes();
            }
            try (RawHttp raw = new RawHttp(served.port())) {
                // two requests in one write: the second waits behind the first, on the same connection
                String call = RawHttp.modernPost(served.port(), Mcp.request(1, "tools/call",
                        Mcp.meta(Mcp.toolCall("get_user", Mcp.args("id", "9")))), "Mcp-Method: tools/call\r\n"
                        + "Mcp-Name: get_user\r\n");
                raw.send(call + call);
                assertThat(raw.read().body()).contains("user9");
                assertThat(raw.read().body()).contains("user9");
            }
        }
    }

    /**
     * A client that resets its connection right after sending part of a request: epoll and NIO see the reset and close
     * the connection at once, well before the request timeouts; Netty's io_uring transport (4.2.18) may not, and the
     * request timeouts close the connection there at the latest.
     */
    @ParameterizedTest
    @EnumSource(value = IoTransport.class, names = {"IO_URING", "EPOLL", "NIO"})
    void aConnectionResetMidRequestIsClosed(IoTransport transport) throws Exception {
        assumeTrue(transport.isAvailable(), () -> transport + " is not available here");
        Duration timeouts = Duration.ofSeconds(2);
        Duration closedWithin = transport == IoTransport.IO_URING ? timeouts.multipliedBy(2) : Duration.ofSeconds(1);
        try (Served served = new Served(b -> b.ioTransport(transport)
                .connections(c -> c.requestHeaderTimeout(timeouts).requestBodyTimeout(timeouts)))) {
            String call = RawHttp.modernPost(served.port(), Mcp.request(1, "tools/call",
                    Mcp.meta(Mcp.toolCall("get_user", Mcp.args("id", "9")))), "Mcp-Method: tools/call\r\n"
                    + "Mcp-Name: get_user\r\n");
            for (int cut : new int[] {20, call.length() - 10}) { // mid-headers, mid-body
                for (int i = 0; i < 3; i++) {
                    RawHttp raw = new RawHttp(served.port());
                    DirectoryFixture.await("connection counted", () -> served.transport.openConnections() == 1);
                    raw.send(call.substring(0, cut));
                    raw.reset();
                    awaitWithin(closedWithin, () -> served.transport.openConnections() == 0);
                }
            }
            try (Mcp mcp = new Mcp(served.transport, HttpClient.Version.HTTP_1_1)) {
                mcp.assertServes();
            }
        }
    }

    private static void awaitWithin(Duration limit, java.util.function.BooleanSupplier condition)
            throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("within %s", limit).isLessThan(deadline);
            Thread.sleep(5);
        }
    }

    @Test
    void theDefaultTakesEpollThenNioButNeverIoUring() throws Exception {
        IoTransport expected = Epoll.isAvailable() ? IoTransport.EPOLL : IoTransport.NIO;
        assertThat(IoTransport.AUTO.resolve()).isEqualTo(expected);
        try (Served served = new Served()) {
            assertThat(served.transport.ioTransport()).isEqualTo(expected);
        }
    }

    @Test
    void aTransportNamedByItsUserIsTakenAsItIs() {
        for (IoTransport t : new IoTransport[] {IoTransport.IO_URING, IoTransport.EPOLL, IoTransport.NIO}) {
            assertThat(t.resolve()).isSameAs(t);
        }
    }

    @Test
    void parsesItsNamesInAnyCaseAndRefusesOthers() {
        assertThat(IoTransport.parse("auto")).isEqualTo(IoTransport.AUTO);
        assertThat(IoTransport.parse("io_uring")).isEqualTo(IoTransport.IO_URING);
        assertThat(IoTransport.parse(" IO-URING ")).isEqualTo(IoTransport.IO_URING);
        assertThat(IoTransport.parse("Epoll")).isEqualTo(IoTransport.EPOLL);
        assertThat(IoTransport.parse("nio")).isEqualTo(IoTransport.NIO);
        assertThat(IoTransport.IO_URING).hasToString("io_uring");
        assertThatThrownBy(() -> IoTransport.parse("kqueue"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("kqueue").hasMessageContaining("auto, io_uring, epoll or nio");
    }
}
