package dev.tern.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

class ZipfAndCacheTallyTest {

    @Test
    void zipfIdsFavourTheFirstRanksAsTheDistributionSays() {
        Workload zipf = Workload.zipf("get_user", "id", 1000, 1.0);
        Map<String, Integer> counts = new HashMap<>();
        int draws = 200_000;
        for (int i = 0; i < draws; i++) {
            Operation op = zipf.next();
            assertThat(op.name()).isEqualTo("get_user");
            counts.merge(op.arguments(), 1, Integer::sum);
        }
        // H(1000) = 7.485: rank 1 takes 13.4 % of the calls, rank 2 6.7 %, rank 1000 0.013 %
        double first = counts.get("{\"id\":\"1\"}") / (double) draws;
        double second = counts.get("{\"id\":\"2\"}") / (double) draws;
        assertThat(first).isBetween(0.125, 0.143);
        assertThat(second).isBetween(0.060, 0.074);
        assertThat(counts.keySet()).allMatch(a -> {
            int id = Integer.parseInt(a.replaceAll("\\D", ""));
            return id >= 1 && id <= 1000;
        });
        assertThat(zipf.toString()).contains("Zipf");
    }

    private static byte[] reply(String result) {
        return ("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":" + result + "}").getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aResultWithLessThanTheWholeTtlCountsAsServedFromTheCache() {
        CacheTally tally = new CacheTally();
        tally.observe(reply("{\"content\":[],\"ttlMs\":30000,\"cacheScope\":\"public\"}"));
        tally.observe(reply("{\"content\":[],\"ttlMs\":29990,\"cacheScope\":\"public\"}"));
        tally.observe(reply("{\"content\":[],\"ttlMs\":12,\"cacheScope\":\"public\"}"));
        tally.observe(reply("{\"content\":[],\"ttlMs\":30000,\"cacheScope\":\"public\"}"));
        assertThat(tally.line()).startsWith("server cache: hit rate 50.0% (2 of 4 results");

        tally.reset();
        tally.observe(reply("{\"content\":[{\"type\":\"text\",\"text\":\"x\"}]}"));
        assertThat(tally.line()).contains("nothing cached");
        assertThat(CacheTally.ttlMs("{\"ttlMs\":\"x\"}".getBytes(StandardCharsets.UTF_8))).isEqualTo(-1);
    }
}
