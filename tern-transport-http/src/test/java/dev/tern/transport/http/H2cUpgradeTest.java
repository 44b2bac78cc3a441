package dev.tern.transport.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** HTTP/1.1 to h2c by {@code Upgrade} (RFC 7540, section 3.2): offered on a connection's first request only. */
class H2cUpgradeTest {
    private static String get(int port, boolean upgrade) {
        return "GET /health/live HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n"
                + (upgrade ? "Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n"
                        : "")
                + "\r\n";
    }

    @Test
    void theFirstRequestMayUpgradeTheConnection() throws Exception {
        try (Served served = new Served(); RawHttp raw = new RawHttp(served.port())) {
            RawHttp.Response switched = raw.send(get(served.port(), true)).readHead();
            assertThat(switched.status()).isEqualTo(101);
            assertThat(switched.headers()).containsEntry("upgrade", "h2c");
        }
    }

    @Test
    void anUpgradeOnALaterRequestIsIgnoredAndTheRequestServedOverHttp11() throws Exception {
        try (Served served = new Served(); RawHttp raw = new RawHttp(served.port())) {
            assertThat(raw.send(get(served.port(), false)).read().status()).isEqualTo(200);
            RawHttp.Response second = raw.send(get(served.port(), true)).read();
            assertThat(second.status()).isEqualTo(200);
            assertThat(second.headers()).doesNotContainKey("upgrade");
            assertThat(raw.send(get(served.port(), false)).read().status()).isEqualTo(200);
        }
    }
}
