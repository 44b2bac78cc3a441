package dev.tern.transport.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

/** The Host check reads a header as {@link HostCheck#hostName} does, whichever way it gets there. */
class HostCheckTest {
    private static final Set<String> ALLOWED = allowed();

    private static Set<String> allowed() {
        Set<String> hosts = new HashSet<>(HostCheck.LOOPBACK);
        hosts.add("api.example");
        return Set.copyOf(hosts);
    }

    @Test
    void everyHeaderIsJudgedByTheNameItCarries() {
        HostCheck check = new HostCheck(ALLOWED, Set.of());
        List<String> headers = List.of("127.0.0.1", "127.0.0.1:8080", "LOCALHOST:80", "localhost", "localhost:",
                " localhost:80", "localhost:80 ", "localhost :80", "localhost\t", "localhost.evil:80", "localhos:80",
                "evil.localhost", "127.0.0.1:8080:9", "::1", "::1:80", "[::1]", "[::1]:8080", "[::2]:8080",
                "Api.Example:443", "api.example.", "apı.example", "APİ.example", "x", ":", ":80", "127.0.0.10");

        for (String header : headers) {
            assertThat(check.hostAllowed(header)).as(header).isEqualTo(ALLOWED.contains(HostCheck.hostName(header)));
        }
        assertThat(check.hostAllowed("127.0.0.1:8080")).isTrue();
        assertThat(check.hostAllowed("localhost.evil:80")).isFalse();
        assertThat(check.hostAllowed(null)).isFalse();
        assertThat(check.hostAllowed("")).isFalse();
    }
}
