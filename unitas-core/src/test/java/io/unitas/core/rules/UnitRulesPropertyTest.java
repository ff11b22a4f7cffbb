package io.unitas.core.rules;

import static io.unitas.core.rules.RulesFixtures.TOPOLOGY;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.LongRange;

import io.unitas.core.Region;
import io.unitas.core.rules.UnitLookup.Outcome;

class UnitRulesPropertyTest {

    private static final List<String> REGIONS = List.of("cn", "eu", "us");

    /** Ranges that tile {@code offset ~ offset+span-1}, each owned by one of {@code units} units, shuffled. */
    record Tiling(long offset, long span, int units, List<UnitRange> ranges) {

        UnitRules.Builder builder(KeyTransform transform) {
            UnitRules.Builder b = UnitRules.builder().source(KeySource.header("x-user-id")).transform(transform)
                    .strategies(Map.of());
            for (int u = 0; u < units; u++) {
                b.unit("u" + u, REGIONS.get(u % REGIONS.size()));
            }
            ranges.forEach(r -> b.range(r.range(), r.unit()));
            return b;
        }

        /** The naive answer: the unit of the first range, in file order, that contains {@code key}. */
        String linearScan(long key) {
            for (UnitRange r : ranges) {
                if (r.range().contains(key)) {
                    return r.unit();
                }
            }
            return null;
        }
    }

    @Provide
    Arbitrary<Tiling> tilings() {
        Arbitrary<Long> offsets = Arbitraries.longs().between(0, 1_000_000);
        Arbitrary<Long> spans = Arbitraries.longs().between(1, 5_000);
        Arbitrary<Integer> unitCounts = Arbitraries.integers().between(1, 6);
        Arbitrary<Long> seeds = Arbitraries.longs();
        return Combinators.combine(offsets, spans, unitCounts, seeds).as(UnitRulesPropertyTest::tile);
    }

    private static Tiling tile(long offset, long span, int units, long seed) {
        Random random = new Random(seed);
        // Sometimes more than one block of the range table's index (64), to cover the search across blocks.
        int pieces = (int) Math.min(span, 1 + random.nextInt(random.nextBoolean() ? 50 : 500));
        TreeSet<Long> cuts = new TreeSet<>();
        while (cuts.size() < pieces - 1) {
            cuts.add(1 + (long) (random.nextDouble() * (span - 1)));
        }
        List<UnitRange> ranges = new ArrayList<>();
        long first = 0;
        for (long cut : cuts) {
            ranges.add(new UnitRange(KeyRange.of(offset + first, offset + cut - 1), "u" + random.nextInt(units)));
            first = cut;
        }
        ranges.add(new UnitRange(KeyRange.of(offset + first, offset + span - 1), "u" + random.nextInt(units)));
        Collections.shuffle(ranges, random);
        return new Tiling(offset, span, units, ranges);
    }

    @Property(tries = 200)
    void everyKeyOfTheCoveredSpace_mapsToExactlyTheUnitWhoseRangeHoldsIt(@ForAll("tilings") Tiling tiling) {
        UnitRules rules = tiling.builder(KeyTransform.none()).build(TOPOLOGY);
        List<Long> keys = new ArrayList<>();
        for (UnitRange r : tiling.ranges()) {
            keys.addAll(List.of(r.range().first() - 1, r.range().first(), r.range().last(), r.range().last() + 1));
        }
        for (long key : keys) {
            if (key < 0) {
                continue;
            }
            UnitLookup lookup = rules.lookupKey(KeySource.header("x-user-id"), Long.toString(key));
            String expected = tiling.linearScan(key);
            if (expected == null) {
                assertThat(lookup.outcome()).isEqualTo(Outcome.OUT_OF_RANGE);
            } else {
                assertThat(lookup.outcome()).isEqualTo(Outcome.UNIT);
                assertThat(lookup.unit().id()).isEqualTo(expected);
                assertThat(lookup.region()).isEqualTo(rules.unit(expected).home());
            }
        }
    }

    @Property(tries = 200)
    void underModN_aTilingOfZeroToNMinusOneIsValid_andEveryKeyHasAUnit(@ForAll("tilings") Tiling tiling,
                                                                      @ForAll @LongRange(min = 0) long user) {
        Tiling fromZero = tile(0, tiling.span(), tiling.units(), tiling.offset());
        UnitRules rules = fromZero.builder(KeyTransform.mod(fromZero.span())).build(TOPOLOGY);
        UnitLookup lookup = rules.lookup(RulesFixtures.header("x-user-id", Long.toString(user)));
        assertThat(lookup.outcome()).isEqualTo(Outcome.UNIT);
        assertThat(lookup.unit().id()).isEqualTo(fromZero.linearScan(user % fromZero.span()));
    }

    @Property(tries = 200)
    void removingOneRange_isReportedAsExactlyItsKeys(@ForAll("tilings") Tiling tiling) {
        Tiling fromZero = tile(0, tiling.span(), tiling.units(), tiling.offset());
        if (fromZero.ranges().size() < 2) {
            return;
        }
        List<UnitRange> fewer = new ArrayList<>(fromZero.ranges());
        UnitRange removed = fewer.remove(0);
        Tiling holed = new Tiling(0, fromZero.span(), fromZero.units(), fewer);
        assertThat(holed.builder(KeyTransform.mod(fromZero.span())).problems(TOPOLOGY))
                .singleElement()
                .satisfies(p -> assertThat(p.message()).startsWith("keys " + removed.range() + " ")
                                                       .contains(" are in no range"));
    }

    @Property(tries = 200)
    void lookup_isDeterministic(@ForAll("tilings") Tiling tiling, @ForAll @LongRange(min = 0) long user) {
        UnitRules a = tiling.builder(KeyTransform.none()).build(TOPOLOGY);
        UnitRules b = tiling.builder(KeyTransform.none()).build(TOPOLOGY);
        RequestView request = RulesFixtures.header("x-user-id", Long.toString(tiling.offset() + user % tiling.span()));
        assertThat(a.lookup(request)).isEqualTo(a.lookup(request)).isEqualTo(b.lookup(request));
    }

    @Property(tries = 300)
    void theFirstSourceThatHasAKey_decides(@ForAll boolean header, @ForAll boolean cookie, @ForAll boolean query,
                                           @ForAll boolean host, @ForAll @LongRange(min = 0) long user) {
        UnitRules rules = RulesFixtures.threeUnits().build(TOPOLOGY);
        String key = Long.toString(user);
        RequestView request = RequestView.of(header ? Map.of("x-user-id", key) : Map.of(),
                                             cookie ? Map.of("uid", key) : Map.of(),
                                             query ? Map.of("user_id", key) : Map.of(),
                                             host ? "paris.example.com" : "www.example.com");
        KeySource expected = header ? KeySource.header("x-user-id") : cookie ? KeySource.cookie("uid")
                : query ? KeySource.query("user_id") : host ? KeySource.domainPrefix() : null;
        UnitLookup lookup = rules.lookup(request);
        assertThat(lookup.source()).isEqualTo(expected);
        assertThat(lookup.outcome()).isEqualTo(expected == null ? Outcome.MISSING_KEY : Outcome.UNIT);
        if (expected != null && expected.kind().usesRanges()) {
            assertThat(lookup.transformedKey()).isEqualTo(user % 10_000);
        }
    }

    @Property(tries = 200)
    void remap_movesOnlyTheNamedUnits(@ForAll("tilings") Tiling tiling, @ForAll long seed) {
        UnitRules.Builder builder = tiling.builder(KeyTransform.none());
        for (int u = 0; u < tiling.units(); u++) {
            builder.gray("u" + u, List.of(GrayRule.otherwise("1.0")));
        }
        UnitRules before = builder.build(TOPOLOGY);
        Random random = new Random(seed);
        Map<String, String> moves = new HashMap<>();
        for (Unit unit : before.units()) {
            if (random.nextBoolean()) {
                moves.put(unit.id(), REGIONS.get(random.nextInt(REGIONS.size())));
            }
        }
        UnitRules after = before.remap(moves);
        for (Unit unit : before.units()) {
            Region expected = moves.containsKey(unit.id()) ? Region.of(moves.get(unit.id())) : unit.home();
            assertThat(after.unit(unit.id()).home()).isEqualTo(expected);
            assertThat(after.gray().containsKey(unit.id())).isEqualTo(expected.equals(unit.home()));
        }
        assertThat(after.ranges()).isEqualTo(before.ranges());
        assertThat(after.sources()).isEqualTo(before.sources());
    }
}
