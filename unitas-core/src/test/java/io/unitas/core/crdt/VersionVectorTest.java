package io.unitas.core.crdt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class VersionVectorTest {

    @ParameterizedTest(name = "{0} compared to {1} is {2}")
    @CsvSource(delimiter = '|', textBlock = """
            ''           | ''           | EQUAL
            cn=1         | cn=1         | EQUAL
            cn=1         | cn=2         | BEFORE
            cn=2         | cn=1         | AFTER
            ''           | eu=1         | BEFORE
            cn=1         | eu=1         | CONCURRENT
            cn=2,eu=1    | cn=1,eu=2    | CONCURRENT
            cn=2,eu=1    | cn=2,eu=1    | EQUAL
            cn=1         | cn=1,eu=1    | BEFORE
            cn=3,eu=0    | cn=3         | EQUAL
            """)
    void compare_isCausalOrder(String left, String right, Causality expected) {
        assertThat(parse(left).compare(parse(right))).isEqualTo(expected);
    }

    @Test
    void merge_takesEachEntrysMaximum() {
        assertThat(parse("cn=2,eu=1").merge(parse("eu=3,us=1"))).isEqualTo(parse("cn=2,eu=3,us=1"));
    }

    @Test
    void increment_countsOneMoreWriteOfThatReplicaOnly() {
        VersionVector v = parse("cn=2,eu=1").increment("eu");
        assertThat(v.counters()).containsExactly(Map.entry("cn", 2L), Map.entry("eu", 2L));
        assertThat(v.contains(new Dot("eu", 2))).isTrue();
        assertThat(v.contains(new Dot("eu", 3))).isFalse();
        assertThat(v.next("us")).isEqualTo(new Dot("us", 1));
    }

    @Test
    void of_rejectsNegativeCounters() {
        assertThatThrownBy(() -> VersionVector.of(Map.of("cn", -1L)))
                .hasMessage("counter of cn: -1 (expected: >= 0)");
    }

    @Test
    void theEmptyVector_hasSeenNoWrite_andZeroCountersAreDropped() {
        assertThat(VersionVector.empty().get("cn")).isZero();
        assertThat(VersionVector.empty().contains(new Dot("cn", 1))).isFalse();
        assertThat(VersionVector.of(Map.of("cn", 0L))).isEqualTo(VersionVector.empty());
        assertThat(VersionVector.of(Map.of("cn", 0L, "eu", 2L)).counters()).containsOnlyKeys("eu");
    }

    @Test
    void with_addsAWriteNotSeen_andKeepsAVectorThatHasSeenIt() {
        VersionVector v = parse("cn=2");

        assertThat(v.with(new Dot("eu", 3))).isEqualTo(parse("cn=2,eu=3"));
        assertThat(v.with(new Dot("cn", 5))).isEqualTo(parse("cn=5"));
        assertThat(v.with(new Dot("cn", 1))).isSameAs(v);
    }

    static VersionVector parse(String text) {
        Map<String, Long> counters = new java.util.HashMap<>();
        if (text != null && !text.isBlank()) {
            for (String entry : text.split(",")) {
                String[] kv = entry.split("=");
                counters.put(kv[0].trim(), Long.parseLong(kv[1].trim()));
            }
        }
        return VersionVector.of(counters);
    }

    @Test
    void merge_returnsTheVectorThatHasSeenEverything_withoutANewOne() {
        VersionVector earlier = parse("cn=1");
        VersionVector later = parse("cn=2,eu=1");

        assertThat(earlier.merge(later)).isSameAs(later);
        assertThat(later.merge(earlier)).isSameAs(later);
        assertThat(later.merge(parse("cn=2,eu=1"))).isSameAs(later);
    }

    @Test
    void dominatesAndConcurrency_readTheComparison() {
        assertThat(parse("cn=2,eu=1").dominates(parse("cn=1"))).isTrue();
        assertThat(parse("cn=1").dominates(parse("cn=1"))).isTrue();
        assertThat(parse("cn=1").dominates(parse("eu=1"))).isFalse();
        assertThat(parse("cn=1").isConcurrentWith(parse("eu=1"))).isTrue();
        assertThat(parse("cn=1").isConcurrentWith(parse("cn=2"))).isFalse();
    }

    @Test
    void entriesStayInReplicaOrder_whateverOrderTheyWereSeenIn() {
        VersionVector v = VersionVector.empty().with(new Dot("us", 1)).with(new Dot("cn", 2)).with(new Dot("eu", 3));

        assertThat(v.counters().keySet()).containsExactly("cn", "eu", "us");
        assertThat(v).hasToString("{cn=2, eu=3, us=1}").isEqualTo(parse("us=1,eu=3,cn=2"));
        assertThat(v.total()).isEqualTo(6);
    }
}
