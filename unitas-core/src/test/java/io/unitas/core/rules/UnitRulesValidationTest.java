package io.unitas.core.rules;

import static io.unitas.core.rules.RulesFixtures.TOPOLOGY;
import static io.unitas.core.rules.RulesFixtures.threeUnits;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.unitas.core.InvalidModelException;
import io.unitas.core.Problem;
import io.unitas.core.Topology;

class UnitRulesValidationTest {

    private static List<String> problems(UnitRules.Builder builder) {
        return problems(builder, TOPOLOGY);
    }

    private static List<String> problems(UnitRules.Builder builder, Topology topology) {
        return builder.problems(topology).stream().map(Problem::toString).toList();
    }

    private static UnitRules.Builder oneUnit() {
        return UnitRules.builder().unit("u-cn", "cn").source(KeySource.header("x-user-id")).strategies(Map.of());
    }

    @Test
    void aCompleteRuleSet_hasNoProblems() {
        assertThat(problems(threeUnits())).isEmpty();
    }

    @Test
    void overlappingRanges_nameBothRangesAndTheOtherUnit() {
        UnitRules.Builder b = oneUnit().unit("u-sh", "cn").transform(KeyTransform.none())
                .range(0, 1999, "u-sh").range(2000, 2999, "u-cn").range(1500, 2500, "u-cn");
        assertThat(problems(b)).containsExactly(
                "ranges[2]: 1500~2500 overlaps 0~1999 of unit u-sh",
                "ranges[2]: 1500~2500 overlaps 2000~2999 of unit u-cn");
    }

    @Test
    void overlaps_areReportedAtTheLaterRangeInTheFile() {
        UnitRules.Builder b = oneUnit().range(100, 200, "u-cn").range(0, 150, "u-cn");
        assertThat(problems(b)).containsExactly("ranges[1]: 0~150 overlaps 100~200 of unit u-cn");
    }

    @Test
    void aGapBetweenRanges_namesTheMissingKeys() {
        UnitRules.Builder b = oneUnit().range(0, 1999, "u-cn").range(3000, 3999, "u-cn");
        assertThat(problems(b)).containsExactly(
                "ranges[1]: keys 2000~2999 between 0~1999 and 3000~3999 are in no range (expected: contiguous ranges)");
    }

    @Test
    void underTransformNone_rangesNeedNotStartAtZero() {
        assertThat(problems(oneUnit().range(1000, 1999, "u-cn"))).isEmpty();
    }

    @Test
    void underModN_rangesMustCoverExactlyZeroToNMinusOne() {
        UnitRules.Builder b = oneUnit().transform(KeyTransform.mod(10_000))
                .range(100, 4999, "u-cn").range(5000, 8999, "u-cn");
        assertThat(problems(b)).containsExactly(
                "ranges: keys 0~99 are in no range (expected: ranges covering exactly 0~9999 under mod 10000)",
                "ranges: keys 9000~9999 are in no range (expected: ranges covering exactly 0~9999 under mod 10000)");
    }

    @Test
    void underHashModN_aGapSaysWhatMustBeCovered() {
        UnitRules.Builder b = oneUnit().transform(KeyTransform.hashMod(100))
                .range(0, 49, "u-cn").range(60, 99, "u-cn");
        assertThat(problems(b)).containsExactly("ranges[1]: keys 50~59 between 0~49 and 60~99 are in no range"
                                                + " (expected: ranges covering exactly 0~99 under hash-mod 100)");
    }

    @Test
    void rangeBounds_invertedNegativeOrOutsideTheKeySpace() {
        UnitRules.Builder b = oneUnit().transform(KeyTransform.mod(10_000))
                .range(2500, 1500, "u-cn").range(-5, 10, "u-cn").range(0, 10_000, "u-cn");
        assertThat(problems(b)).containsExactly(
                "ranges[0].range: 2500~1500 is inverted (expected: first <= last)",
                "ranges[1].range: -5~10 (expected: bounds >= 0)",
                "ranges[2].range: 0~10000 is outside the key space (expected: within 0~9999 under mod 10000)");
    }

    @Test
    void aRangeOfAnUnknownUnit_listsTheKnownUnits() {
        assertThat(problems(oneUnit().range(0, 9, "u-mars"))).containsExactly(
                "ranges[0].unit: unknown unit 'u-mars' (expected one of: u-cn)");
    }

    @Test
    void aUnitInARegionTheTopologyLacks_listsTheKnownRegions() {
        assertThat(problems(oneUnit().unit("u-mars", "mars").range(0, 9, "u-cn"))).containsExactly(
                "units[1].region: unknown region 'mars' (expected one of: cn, eu, us)");
    }

    @Test
    void duplicateAndMalformedUnitIds() {
        UnitRules.Builder b = oneUnit().unit("u-cn", "eu").unit("U CN", "eu").range(0, 9, "u-cn");
        assertThat(problems(b)).containsExactly(
                "units[1].id: duplicate unit 'u-cn' (first at units[0])",
                "units[2].id: 'U CN' (expected: lowercase letters, digits, '-' or '_', at most 63)");
    }

    @Test
    void noUnitsNoSourcesNoRanges() {
        assertThat(problems(UnitRules.builder())).containsExactly(
                "units: [] (expected: at least one unit)",
                "key.sources: [] (expected: at least one of header, cookie, query, path, domain-prefix, strategy)");
        assertThat(problems(oneUnit())).containsExactly(
                "ranges: [] (expected: at least one range for the header, cookie, query or path key sources)");
    }

    @Test
    void rangesWithoutASourceThatReadsKeys() {
        UnitRules.Builder b = UnitRules.builder().unit("u-cn", "cn").source(KeySource.domainPrefix())
                .domain("shanghai", "u-cn").range(0, 9, "u-cn");
        assertThat(problems(b)).containsExactly("ranges: 1 ranges, but no header, cookie, query or path key source reads"
                                                + " a key (expected: such a source in key.sources, or no ranges)");
    }

    @Test
    void duplicateKeySources() {
        UnitRules.Builder b = oneUnit().source(KeySource.cookie("uid")).source(KeySource.header("X-User-Id"))
                .range(0, 9, "u-cn");
        assertThat(problems(b)).containsExactly(
                "key.sources[2]: duplicate source header x-user-id (first at key.sources[0])");
    }

    @Test
    void duplicateDomainPrefixes_matchCaseInsensitively() {
        UnitRules.Builder b = threeUnits().domain("Shanghai", "u-eu");
        assertThat(problems(b)).containsExactly(
                "domains.Shanghai: duplicate domain prefix 'shanghai' (first at domains.shanghai)");
    }

    @Test
    void domainPrefixes_malformedOrOfAnUnknownUnit() {
        UnitRules.Builder b = threeUnits().domain("a.b", "u-cn").domain("berlin", "u-de");
        assertThat(problems(b)).containsExactly(
                "domains.a.b: 'a.b' is not a domain prefix (expected: one DNS label: letters, digits, '-')",
                "domains.berlin: unknown unit 'u-de' (expected one of: u-cn, u-eu, u-us)");
    }

    @Test
    void domainPrefixSourceAndDomainMap_comeTogether() {
        UnitRules.Builder noMap = UnitRules.builder().unit("u-cn", "cn").source(KeySource.domainPrefix());
        assertThat(problems(noMap)).containsExactly(
                "domains: {} (expected: domain prefixes mapped to units, for key source domain-prefix)");
        UnitRules.Builder noSource = oneUnit().range(0, 9, "u-cn").domain("shanghai", "u-cn");
        assertThat(problems(noSource)).containsExactly("domains: 1 domain prefixes, but key.sources has no"
                + " domain-prefix source (expected: {domain-prefix: true} in key.sources, or no domains)");
    }

    @Test
    void missingCenter_needsATopologyWithACenter() {
        UnitRules.Builder b = oneUnit().range(0, 9, "u-cn").missing(MissingKeyAction.CENTER);
        assertThat(problems(b, Topology.of("cn", "eu"))).containsExactly("key.missing: center, but the topology"
                + " names no center region (expected: a topology with a center, or missing: reject)");
        assertThat(problems(b, TOPOLOGY)).isEmpty();
    }

    @Test
    void anUnknownStrategy_listsTheInstalledOnes() {
        UnitRules.Builder b = oneUnit().range(0, 9, "u-cn").source(KeySource.strategy("geo"));
        assertThat(problems(b)).containsExactly("key.sources[1].strategy: unknown strategy 'geo' (expected: a"
                + " strategy listed in META-INF/services/io.unitas.core.rules.UnitStrategy; none is installed)");
        b.strategies(Map.of("tenant", new TenantStrategy()));
        assertThat(problems(b)).containsExactly(
                "key.sources[1].strategy: unknown strategy 'geo' (expected one of: tenant)");
    }

    @Test
    void grayRules_ofAnUnknownUnitOrAfterTheFallbackRoute() {
        UnitRules.Builder b = threeUnits()
                .gray("u-cn", List.of(GrayRule.otherwise("1.0"), GrayRule.when("x-version", "1.1", "1.1")))
                .gray("u-xx", List.of(GrayRule.otherwise("1.0")));
        assertThat(problems(b)).containsExactly(
                "gray.u-cn[1]: header x-version == 1.1 -> 1.1 is unreachable after the fallback route at"
                + " gray.u-cn[0] (expected: the rule without 'when' last)",
                "gray.u-xx: unknown unit 'u-xx' (expected one of: u-cn, u-eu, u-us)");
    }

    @Test
    void build_throwsEveryProblemAtOnce() {
        UnitRules.Builder b = oneUnit().unit("u-cn", "mars").range(0, 9, "u-xx");
        assertThatThrownBy(() -> b.build(TOPOLOGY))
                .isInstanceOf(InvalidModelException.class)
                .satisfies(e -> assertThat(((InvalidModelException) e).problems()).hasSize(3));
    }

    @Test
    void aLongListOfChoices_isShortened() {
        UnitRules.Builder b = UnitRules.builder().source(KeySource.header("x")).strategies(Map.of());
        for (int i = 0; i < 20; i++) {
            b.unit("u" + i, "cn").range(i, i, "u" + i);
        }
        b.range(20, 20, "nope");
        assertThat(problems(b)).containsExactly("ranges[20].unit: unknown unit 'nope' (expected one of:"
                + " u0, u1, u2, u3, u4, u5, u6, u7, u8, u9, u10, u11, ...)");
    }
}
