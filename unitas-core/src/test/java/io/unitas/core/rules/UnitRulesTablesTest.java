package io.unitas.core.rules;

import static io.unitas.core.rules.RulesFixtures.TOPOLOGY;
import static io.unitas.core.rules.RulesFixtures.header;
import static io.unitas.core.rules.RulesFixtures.threeUnits;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.unitas.core.Topology;

/** Lookups through large range tables and every domain prefix, gray rules that match nothing, and the rules' words. */
class UnitRulesTablesTest {

    @ParameterizedTest(name = "host {0} is in unit {1}")
    @CsvSource({"shanghai.example.com, u-cn", "paris.example.com, u-eu", "newyork.example.com, u-us"})
    void everyDomainPrefix_namesItsUnit_theFirstListedToo(String host, String unit) {
        UnitRules rules = threeUnits().build(TOPOLOGY);

        UnitLookup lookup = rules.lookup(RequestView.of(Map.of(), Map.of(), Map.of(), host));

        assertThat(lookup.outcome()).isEqualTo(UnitLookup.Outcome.UNIT);
        assertThat(lookup.unit().id()).isEqualTo(unit);
    }

    @Test
    void manyRanges_givenInAnyOrder_eachKeyFindsItsOwnUnit_acrossEverySearchBlock() {
        // 300 ranges of 10 keys, over several of the table's 64-range search blocks, given last to first
        Topology topology = Topology.of("cn", "eu", "us");
        UnitRules.Builder b = UnitRules.builder().source(KeySource.header("k"));
        int n = 300;
        for (int i = 0; i < n; i++) {
            b.unit("u-" + i, List.of("cn", "eu", "us").get(i % 3));
        }
        for (int i = n - 1; i >= 0; i--) {
            b.range(i * 10L, i * 10L + 9, "u-" + i);
        }
        UnitRules rules = b.build(topology);

        for (int i = 0; i < n; i++) {
            for (long key : new long[] {i * 10L, i * 10L + 5, i * 10L + 9}) {
                assertThat(rules.lookup(header("k", Long.toString(key))).unit().id()).as("key " + key)
                                                                                   .isEqualTo("u-" + i);
            }
        }
        assertThat(rules.lookup(header("k", Long.toString(n * 10L))).outcome())
                .isEqualTo(UnitLookup.Outcome.OUT_OF_RANGE);
    }

    @ParameterizedTest(name = "{0} ranges")
    @CsvSource({"63", "64", "65", "127", "128"})
    void aTableOfRangesAtASearchBlocksEdge_findsItsFirstAndLastKeys(int n) {
        UnitRules.Builder b = UnitRules.builder().source(KeySource.header("k"));
        for (int i = 0; i < n; i++) {
            b.unit("u-" + i, "cn").range(i * 2L, i * 2L + 1, "u-" + i);
        }
        UnitRules rules = b.build(Topology.of("cn"));

        assertThat(rules.lookup(header("k", "0")).unit().id()).isEqualTo("u-0");
        assertThat(rules.lookup(header("k", Long.toString(n * 2L - 1))).unit().id()).isEqualTo("u-" + (n - 1));
        assertThat(rules.lookup(header("k", Long.toString(n * 2L))).outcome())
                .isEqualTo(UnitLookup.Outcome.OUT_OF_RANGE);
    }

    @Test
    void grayRulesWithoutAFallback_pickNoVersion_forARequestNoneMatches() {
        List<GrayRule> rules = List.of(GrayRule.when("x-gray", "1", "1.1"), GrayRule.when("x-gray", "2", "1.2"));

        assertThat(GrayRule.select(rules, header("x-gray", "2"))).isEqualTo("1.2");
        assertThat(GrayRule.select(rules, header("x-gray", "3"))).isNull();
        assertThat(GrayRule.select(List.of(), header("x-gray", "1"))).isNull();
    }

    @Test
    void theDomainPrefixSource_takesNoName() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new KeySource(KeySource.Kind.DOMAIN_PREFIX, "shanghai"))
                .withMessage("domain-prefix: 'shanghai' (expected: no name)");
    }

    @Test
    void theRulesWords_areTheLabelsOfTheirFiles() {
        assertThat(MissingKeyAction.values()).extracting(MissingKeyAction::label).containsExactly("reject", "center");
        for (MissingKeyAction a : MissingKeyAction.values()) {
            assertThat(MissingKeyAction.ofLabel(a.label())).isEqualTo(a);
        }
        assertThat(MissingKeyAction.ofLabel("drop")).isNull();
        assertThat(KeySource.Kind.values()).extracting(KeySource.Kind::label)
                                           .containsExactly("header", "cookie", "query", "path", "domain-prefix",
                                                            "strategy");
        assertThat(UnitLookup.Outcome.values()).extracting(UnitLookup.Outcome::reason)
                .containsExactly("unit", "center", "missing_key", "bad_key", "out_of_range", "unknown_unit",
                                 "ambiguous_key");
    }
}
