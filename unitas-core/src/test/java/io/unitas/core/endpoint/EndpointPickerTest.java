package io.unitas.core.endpoint;

import static io.unitas.core.endpoint.EndpointState.DEGRADED;
import static io.unitas.core.endpoint.EndpointState.EVICTED;
import static io.unitas.core.endpoint.EndpointState.HEALTHY;
import static io.unitas.core.endpoint.EndpointState.UNHEALTHY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.zip.CRC32;

import io.unitas.core.endpoint.EndpointPicker.Candidate;
import io.unitas.core.internal.Crc32;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/** RFC 2782 selection after health, and the CRC32 pick that keeps a key on one address. */
class EndpointPickerTest {

    @Provide
    Arbitrary<List<Candidate>> candidates() {
        Arbitrary<Candidate> one = Combinators.combine(
                Arbitraries.of(10, 20, 30),
                Arbitraries.longs().between(0, 200),
                Arbitraries.of(EndpointState.class)).as(Candidate::new);
        return one.list().ofMinSize(1).ofMaxSize(12);
    }

    @Property(tries = 300)
    void neverPicksAnEvictedEndpoint_whileAnotherExists(@ForAll("candidates") List<Candidate> cs, @ForAll long seed) {
        EndpointPicker p = EndpointPicker.of(cs);
        SplittableRandom r = new SplittableRandom(seed);
        boolean someoneElse = cs.stream().anyMatch(c -> c.state() != EVICTED);
        boolean someoneServed = cs.stream().anyMatch(c -> c.state().tier() == 0);
        for (int i = 0; i < 50; i++) {
            Candidate c = cs.get(p.pick(r));
            if (someoneElse) {
                assertThat(c.state()).isNotEqualTo(EVICTED);
            }
            if (someoneServed) {
                assertThat(c.state().tier()).isZero();
            }
        }
    }

    @Property(tries = 300)
    void picksTheLowestPriority_amongTheBestTier(@ForAll("candidates") List<Candidate> cs, @ForAll long seed) {
        EndpointPicker p = EndpointPicker.of(cs);
        Candidate c = cs.get(p.pick(new SplittableRandom(seed)));
        int lowest = cs.stream().filter(x -> x.state().tier() == c.state().tier())
                .mapToInt(Candidate::priority).min().orElseThrow();
        assertThat(c.priority()).isEqualTo(lowest);
        assertThat(cs.stream().mapToInt(x -> x.state().tier()).min().orElseThrow()).isEqualTo(c.state().tier());
    }

    @Property(tries = 30)
    void frequencies_followTheWeights(@ForAll @IntRange(min = 1, max = 500) int a,
                                      @ForAll @IntRange(min = 1, max = 500) int b,
                                      @ForAll @IntRange(min = 1, max = 500) int c, @ForAll long seed) {
        List<Candidate> cs = List.of(new Candidate(10, a, HEALTHY), new Candidate(10, b, DEGRADED),
                new Candidate(10, c, HEALTHY), new Candidate(20, 1000, HEALTHY));
        EndpointPicker p = EndpointPicker.of(cs);
        SplittableRandom r = new SplittableRandom(seed);
        int[] hits = new int[4];
        int draws = 40_000;
        for (int i = 0; i < draws; i++) {
            hits[p.pick(r)]++;
        }
        double total = a + b + c;
        assertThat(hits[3]).isZero();
        assertThat(hits[0] / (double) draws).isCloseTo(a / total, within(0.02));
        assertThat(hits[1] / (double) draws).isCloseTo(b / total, within(0.02));
        assertThat(hits[2] / (double) draws).isCloseTo(c / total, within(0.02));
    }

    @Test
    void weightZero_hasAVerySmallChance_asRfc2782Says() {
        EndpointPicker p = EndpointPicker.of(List.of(new Candidate(0, 999, HEALTHY), new Candidate(0, 0, HEALTHY)));
        SplittableRandom r = new SplittableRandom(1);
        int zero = 0;
        for (int i = 0; i < 1_000_000; i++) {
            zero += p.pick(r) == 1 ? 1 : 0;
        }
        assertThat(zero / 1e6).isCloseTo(1 / 1000.0, within(0.0005));
    }

    @Test
    void allWeightsZero_areChosenUniformly() {
        EndpointPicker p = EndpointPicker.of(List.of(new Candidate(0, 0, HEALTHY), new Candidate(0, 0, HEALTHY)));
        SplittableRandom r = new SplittableRandom(2);
        int first = 0;
        for (int i = 0; i < 10_000; i++) {
            first += p.pick(r) == 0 ? 1 : 0;
        }
        assertThat(first / 1e4).isCloseTo(0.5, within(0.03));
    }

    @Test
    void unhealthy_servesOnlyWhenNothingBetterIsLeft_evictedOnlyWhenNothingElse() {
        assertThat(EndpointPicker.of(List.of(new Candidate(10, 1, UNHEALTHY), new Candidate(20, 1, HEALTHY)))
                .eligible()).containsExactly(1);
        assertThat(EndpointPicker.of(List.of(new Candidate(10, 1, EVICTED), new Candidate(20, 1, UNHEALTHY)))
                .eligible()).containsExactly(1);
        assertThat(EndpointPicker.of(List.of(new Candidate(10, 1, EVICTED))).eligible()).containsExactly(0);
        EndpointPicker none = EndpointPicker.of(List.of());
        assertThat(none.pick(new SplittableRandom(3))).isEqualTo(-1);
        assertThat(none.pick("u1")).isEqualTo(-1);
    }

    @Property(tries = 300)
    void aKey_sticksToOneEndpoint(@ForAll("candidates") List<Candidate> cs, @ForAll String key) {
        EndpointPicker p = EndpointPicker.of(cs);
        EndpointPicker again = EndpointPicker.of(new ArrayList<>(cs));
        int i = p.pick(key);
        assertThat(i).isEqualTo(p.pick(key)).isEqualTo(again.pick(key));
        assertThat(p.eligible()).contains(i);
    }

    @Property(tries = 1000)
    void crc32_isZlibsOverUtf8(@ForAll String key) {
        CRC32 zip = new CRC32();
        zip.update(key.getBytes(StandardCharsets.UTF_8));
        assertThat(Crc32.of(key) & 0xFFFF_FFFFL).isEqualTo(zip.getValue());
        byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
        assertThat(Crc32.of(bytes, 0, bytes.length)).isEqualTo(Crc32.of(key));
    }

    @Property(tries = 20)
    void crc32Index_spreadsKeysEvenly(@ForAll @IntRange(min = 2, max = 16) int n) {
        int[] hits = new int[n];
        int keys = 32_000;
        for (int u = 0; u < keys; u++) {
            hits[Crc32.index("user-" + u, n)]++;
        }
        for (int h : hits) {
            assertThat(h / (double) keys).isCloseTo(1.0 / n, within(0.2 / n));
        }
    }
}
