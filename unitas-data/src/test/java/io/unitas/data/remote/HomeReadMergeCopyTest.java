package io.unitas.data.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.unitas.core.Region;
import io.unitas.core.reconcile.RangeDigest;
import io.unitas.data.merge.MergeDigests;

/**
 * The merged copy a home serves to reconciliation, over real HTTP: digests and rows as the copy holds them, rows in
 * pages (a copy without paging of its own cut by the default {@link MergeDigests#page}), and requests refused with
 * the problem that names what is wrong — a malformed query, a type not served, a unit not owned.
 */
class HomeReadMergeCopyTest {

    private static final String TOKEN = "t0ken";
    private static final int RANGES = 8;
    private static final Region CN = Region.of("cn");

    /** 1,200 rows of unit u-1 in memory, digested the way both ends agree on. */
    private final Map<String, MergeDigests.Row> rows = new HashMap<>();
    private final MergeDigests copy = new MergeDigests() {
        @Override
        public Map<Integer, RangeDigest> digests(String unit, String type, int ranges) {
            Map<Integer, RangeDigest> digests = new HashMap<>();
            rows.keySet().forEach(k -> digests.merge(MergeDigests.range(k, ranges), new RangeDigest(1, k.hashCode()),
                    (a, b) -> new RangeDigest(a.rows() + 1, a.hash() + b.hash())));
            return "u-1".equals(unit) ? digests : Map.of();
        }

        @Override
        public Map<String, Row> rows(String unit, String type, int ranges, Collection<Integer> which) {
            Map<String, Row> found = new HashMap<>();
            rows.forEach((k, r) -> {
                if ("u-1".equals(unit) && which.contains(MergeDigests.range(k, ranges))) {
                    found.put(k, r);
                }
            });
            return found;
        }
    };
    private HomeReadServer server;
    private HomeReadClient client;

    @BeforeEach
    void start() {
        IntStream.range(0, 1_200).forEach(i -> rows.put("key-" + i, new MergeDigests.Row(
                ("state " + i).getBytes(StandardCharsets.UTF_8), i % 2 == 0)));
        server = HomeReadServer.builder().region(CN).owns("u-1"::equals).token(TOKEN)
                               .mergeCopy(copy, Set.of("likes")).meterRegistry(new SimpleMeterRegistry()).start();
        client = HomeReadClient.builder().endpoint(CN, server.uri()).token(TOKEN).deadline(Duration.ofSeconds(5))
                               .hedgeAfter(Duration.ofSeconds(4)).meterRegistry(new SimpleMeterRegistry()).build();
    }

    @AfterEach
    void stop() {
        client.close();
        server.close();
    }

    @Test
    void digestsAndRows_arriveAsTheCopyHoldsThem_rowsInPages() {
        MergeDigests remote = client.mergeCopy(CN);
        List<Integer> all = IntStream.range(0, RANGES).boxed().toList();

        assertThat(remote.digests("u-1", "likes", RANGES)).isEqualTo(copy.digests("u-1", "likes", RANGES));
        Map<String, MergeDigests.Row> read = remote.rows("u-1", "likes", RANGES, all);
        assertThat(read).hasSize(1_200);
        assertThat(read.get("key-7").state()).asString(StandardCharsets.UTF_8).isEqualTo("state 7");
        assertThat(read.get("key-8").writtenHere()).isTrue();
        MergeDigests.Page first = remote.page("u-1", "likes", RANGES, all, "", 500);
        assertThat(first.rows()).hasSize(MergeWire.PAGE);
        assertThat(first.next()).contains(first.rows().keySet().stream().reduce((a, b) -> b).orElseThrow());
        MergeDigests.Page third = remote.page("u-1", "likes", RANGES, all, remote.page("u-1", "likes", RANGES, all,
                first.next().orElseThrow(), 500).next().orElseThrow(), 500);
        assertThat(third.rows()).hasSize(200);
        assertThat(third.next()).as("the last page").isEmpty();
    }

    @Test
    void requestsThatCannotBeAnswered_areRefusedWithTheProblemNamingWhy() throws Exception {
        assertThat(get("/unitas/v1/merge/rows?unit=u-1&type=likes&ranges=8&which=3,8"))
                .startsWith("400 ").contains("which: 1 to 256 comma-separated ranges below ranges");
        assertThat(get("/unitas/v1/merge/digests?unit=u-1&type=likes&ranges=16385")).startsWith("400 ")
                                                                                   .contains("ranges 1 to 16384");
        assertThat(get("/unitas/v1/merge/digests?unit=u-1&type=orders&ranges=8")).startsWith("404 ")
                .contains("merged entity type 'orders': not served by region cn (expected: one of [likes])");
        assertThat(get("/unitas/v1/merge/digests?unit=u-2&type=likes&ranges=8")).startsWith("421 ")
                                                                               .contains("not its home now");
        assertThatThrownBy(() -> client.mergeCopy(CN).digests("u-2", "likes", RANGES))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("digests of likes of unit u-2 from home region cn: answered not-home-region");
    }

    private String get(String pathAndQuery) throws Exception {
        HttpResponse<String> answer = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build().send(
                HttpRequest.newBuilder(URI.create(server.uri() + pathAndQuery))
                           .header("Authorization", "Bearer " + TOKEN).build(),
                HttpResponse.BodyHandlers.ofString());
        return answer.statusCode() + " " + answer.body();
    }
}
