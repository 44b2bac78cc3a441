package dev.tern.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Base64;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.tern.protocol.ErrorCodes;
import dev.tern.protocol.Json;
import dev.tern.protocol.McpException;

import tools.jackson.databind.node.ObjectNode;

/** requestState is attacker-controlled: only what this server sealed, for this request, unexpired, opens. */
class RequestStateSealerTest {
    private static final byte[] KEY = "0123456789abcdef0123456789abcdef".getBytes();
    private static final Duration LIFETIME = Duration.ofMinutes(10);

    /** A clock the test moves by hand. */
    static final class ManualClock extends Clock {
        private Instant now;

        ManualClock(Instant start) {
            this.now = start;
        }

        void advance(Duration d) {
            now = now.plus(d);
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }

    private final ManualClock clock = new ManualClock(Instant.parse("2026-08-01T10:00:00Z"));
    private final RequestStateSealer sealer = new RequestStateSealer(KEY, LIFETIME, clock);

    private static ObjectNode params(String json) {
        return (ObjectNode) Json.mapper().readTree(json);
    }

    private static ObjectNode answers() {
        ObjectNode a = Json.object();
        a.putObject("elicitation-1").put("action", "accept").putObject("content").put("name", "octocat");
        return a;
    }

    private final String binding = RequestStateSealer.binding("tools/call",
            params("{\"name\":\"login\",\"arguments\":{\"org\":\"acme\"}}"));

    private static void assertRefused(Runnable r, String reason) {
        assertThatThrownBy(r::run).isInstanceOfSatisfying(McpException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCodes.INVALID_PARAMS);
            assertThat(e.getMessage()).contains(reason);
        });
    }

    @Test
    void sealedStateOpensToTheSameAnswers() {
        String state = sealer.seal(binding, answers());
        assertThat(sealer.open(state, binding)).isEqualTo(answers());
    }

    @Test
    void emptyAnswersRoundTrip() {
        assertThat(sealer.open(sealer.seal(binding, Json.object()), binding)).isEqualTo(Json.object());
    }

    @Test
    void theStateIsOpaqueUrlSafeText() {
        String state = sealer.seal(binding, answers());
        assertThat(state).matches("[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+");
    }

    @Test
    void aTamperedPayloadIsRefused() {
        String state = sealer.seal(binding, answers());
        int dot = state.indexOf('.');
        byte[] body = Base64.getUrlDecoder().decode(state.substring(0, dot));
        String json = new String(body).replace("octocat", "attacker");
        String forged = Base64.getUrlEncoder().withoutPadding().encodeToString(json.getBytes()) + state.substring(dot);
        assertRefused(() -> sealer.open(forged, binding), "integrity");
    }

    @Test
    void aFlippedPayloadCharacterIsRefused() {
        String state = sealer.seal(binding, answers());
        char c = state.charAt(5);
        String forged = state.substring(0, 5) + (c == 'A' ? 'B' : 'A') + state.substring(6);
        assertThatThrownBy(() -> sealer.open(forged, binding)).isInstanceOf(McpException.class);
    }

    @Test
    void aTamperedMacIsRefused() {
        String state = sealer.seal(binding, answers());
        int dot = state.indexOf('.');
        byte[] mac = Base64.getUrlDecoder().decode(state.substring(dot + 1));
        mac[0] ^= 1;
        String forged = state.substring(0, dot + 1) + Base64.getUrlEncoder().withoutPadding().encodeToString(mac);
        assertRefused(() -> sealer.open(forged, binding), "integrity");
        String truncated = state.substring(0, state.length() - 4);
        assertRefused(() -> sealer.open(truncated, binding), "");
    }

    @Test
    void stateSealedWithAnotherKeyIsRefused() {
        byte[] other = KEY.clone();
        other[0] ^= 1;
        String foreign = new RequestStateSealer(other, LIFETIME, clock).seal(binding, answers());
        assertRefused(() -> sealer.open(foreign, binding), "integrity");
    }

    @Test
    void theSameKeyOpensStateFromAnotherNode() {
        String state = new RequestStateSealer(KEY.clone(), LIFETIME, clock).seal(binding, answers());
        assertThat(sealer.open(state, binding)).isEqualTo(answers());
    }

    @Test
    void duringARotationStateSealedWithTheOldKeyOpensAndNewStateIsSealedWithTheNewKey() {
        byte[] next = KEY.clone();
        next[0] ^= 1;
        RequestStateSealer rotated = new RequestStateSealer(java.util.List.of(next, KEY), LIFETIME, clock);

        assertThat(rotated.open(sealer.seal(binding, answers()), binding)).isEqualTo(answers());
        String fresh = rotated.seal(binding, answers());
        assertThat(new RequestStateSealer(next, LIFETIME, clock).open(fresh, binding)).isEqualTo(answers());
        assertRefused(() -> sealer.open(fresh, binding), "integrity");
    }

    @Test
    void expiredStateIsRefused() {
        String state = sealer.seal(binding, answers());
        clock.advance(LIFETIME.minusSeconds(1));
        assertThat(sealer.open(state, binding)).isEqualTo(answers());
        clock.advance(Duration.ofSeconds(2));
        assertRefused(() -> sealer.open(state, binding), "expired");
    }

    @Test
    void stateForAnotherRequestIsRefused() {
        String state = sealer.seal(binding, answers());
        String otherArguments = RequestStateSealer.binding("tools/call",
                params("{\"name\":\"login\",\"arguments\":{\"org\":\"evil\"}}"));
        String otherTool = RequestStateSealer.binding("tools/call", params("{\"name\":\"delete\",\"arguments\":{\"org\":\"acme\"}}"));
        String otherMethod = RequestStateSealer.binding("prompts/get", params("{\"name\":\"login\",\"arguments\":{\"org\":\"acme\"}}"));
        for (String b : new String[] {otherArguments, otherTool, otherMethod}) {
            assertRefused(() -> sealer.open(state, b), "another request");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"", ".", "abc", ".abc", "abc.", "a.b.c", "!!!.???", "eyJ9.%%%"})
    void malformedStateIsRefused(String state) {
        assertThatThrownBy(() -> sealer.open(state, binding)).isInstanceOfSatisfying(McpException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCodes.INVALID_PARAMS));
    }

    @Test
    void oversizedStateIsRefusedBeforeAnyWork() {
        assertRefused(() -> sealer.open("A".repeat(300 * 1024) + ".A", binding), "too long");
    }

    @Test
    void bindingIgnoresKeyOrder() {
        String a = RequestStateSealer.binding("tools/call",
                params("{\"name\":\"t\",\"arguments\":{\"a\":1,\"b\":{\"x\":[1,2],\"y\":null}}}"));
        String b = RequestStateSealer.binding("tools/call",
                params("{\"arguments\":{\"b\":{\"y\":null,\"x\":[1,2]},\"a\":1},\"name\":\"t\"}"));
        assertThat(a).isEqualTo(b);
    }

    @Test
    void bindingIgnoresMetaInputResponsesAndTheStateItself() {
        String plain = RequestStateSealer.binding("tools/call", params("{\"name\":\"t\",\"arguments\":{\"a\":1}}"));
        String retry = RequestStateSealer.binding("tools/call", params("{\"name\":\"t\",\"arguments\":{\"a\":1},"
                + "\"_meta\":{\"progressToken\":5},\"inputResponses\":{\"k\":{\"action\":\"accept\"}},\"requestState\":\"x.y\"}"));
        assertThat(retry).isEqualTo(plain);
    }

    @Test
    void bindingTellsArrayOrderAndValuesApart() {
        String a = RequestStateSealer.binding("tools/call", params("{\"name\":\"t\",\"arguments\":{\"l\":[1,2]}}"));
        String b = RequestStateSealer.binding("tools/call", params("{\"name\":\"t\",\"arguments\":{\"l\":[2,1]}}"));
        String c = RequestStateSealer.binding("tools/call", params("{\"name\":\"t\",\"arguments\":{\"l\":[\"1\",2]}}"));
        String d = RequestStateSealer.binding("tools/call", params("{\"name\":\"t\",\"arguments\":{\"l\":[[1],2]}}"));
        assertThat(java.util.Set.of(a, b, c, d)).hasSize(4);
    }

    @Test
    void bindingTellsNestedKeysApart() {
        String a = RequestStateSealer.binding("tools/call", params("{\"arguments\":{\"a\":{\"b\":1}}}"));
        String b = RequestStateSealer.binding("tools/call", params("{\"arguments\":{\"a.b\":1}}"));
        String c = RequestStateSealer.binding("tools/call", params("{\"arguments\":{\"a\":{\"b\":1},\"c\":null}}"));
        assertThat(java.util.Set.of(a, b, c)).hasSize(3);
    }

    @Test
    void randomKeysAreLongAndDifferent() {
        byte[] a = RequestStateSealer.randomKey();
        byte[] b = RequestStateSealer.randomKey();
        assertThat(a).hasSizeGreaterThanOrEqualTo(32);
        assertThat(a).isNotEqualTo(b);
    }
}
