package io.unitas.core.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.unitas.core.Region;

/**
 * Lag per link from two sides' positions: cn writes u-sh (changes at 10, 20, 30, kept because some region lacks
 * them), eu and us apply from cn.
 */
class UnitLinksTest {

    private static final Instant T0 = Instant.parse("2026-11-30T14:00:00Z");
    private static final Region CN = Region.of("cn");
    private static final Region EU = Region.of("eu");
    private static final Region US = Region.of("us");
    private static final UnitPositions.Written KEPT = new UnitPositions.Written(3, 10, T0, 30, T0.plusMillis(400));

    private static UnitPositions writer(Instant readAt) {
        return UnitPositions.of(readAt, Map.of("u-sh", KEPT), Map.of());
    }

    private static UnitPositions reader(Instant readAt, long appliedFromCn) {
        return UnitPositions.of(readAt, Map.of(), Map.of(CN, Map.of("u-sh", appliedFromCn)));
    }

    private static UnitLink link(UnitPositions cn, UnitPositions eu) {
        Map<Region, UnitPositions> all = new LinkedHashMap<>();
        all.put(CN, cn);
        all.put(EU, eu);
        return UnitLinks.of(all, Map.of("u-sh", CN)).stream().filter(l -> l.from().equals(CN)).findFirst()
                        .orElseThrow();
    }

    @Test
    void targetBehindEveryKeptChange_lacksAllOfThem_agedFromTheOldest() {
        UnitLink l = link(writer(T0.plusSeconds(2)), reader(T0.plusSeconds(2), 5));
        assertThat(l).isEqualTo(new UnitLink("u-sh", CN, EU, 3, 2_000, true, T0.plusSeconds(2)));
    }

    @Test
    void targetAtTheHead_isCaughtUp() {
        UnitLink l = link(writer(T0.plusSeconds(2)), reader(T0.plusSeconds(2), 30));
        assertThat(l.changes()).isZero();
        assertThat(l.lagMs()).isZero();
        assertThat(l.exact()).isTrue();
    }

    @Test
    void targetPartWay_givesBoundsNeverBelowTheTruth() {
        UnitLink l = link(writer(T0.plusSeconds(2)), reader(T0.plusSeconds(2), 20));
        assertThat(l.exact()).isFalse();
        assertThat(l.changes()).isEqualTo(2); // the truth is 1 (30): at most 2
        assertThat(l.lagMs()).isEqualTo(2_000); // the truth is 1600 (30 written at +400 ms): at most 2000
    }

    @Test
    void theLagIsTakenAtTheOlderReading() {
        UnitLink l = link(writer(T0.plusSeconds(1)), reader(T0.plusSeconds(9), 5));
        assertThat(l.measuredAt()).isEqualTo(T0.plusSeconds(1));
        assertThat(l.lagMs()).isEqualTo(1_000);
    }

    @Test
    void aTargetClockBehindTheWriters_neverGivesANegativeLag() {
        UnitLink l = link(writer(T0.minusSeconds(1)), reader(T0.minusSeconds(1), 5));
        assertThat(l.lagMs()).isEqualTo(1);
        assertThat(l.changes()).isEqualTo(3);
    }

    @Test
    void aTargetReadBeforeTheChangeWasWritten_lacksIt_andIsNeverZeroBehind() {
        // the reader's last report predates the write (a stalled agent): 0 ms would read as caught up
        UnitLink l = link(writer(T0.plusSeconds(2)), reader(T0.minusMillis(300), 5));
        assertThat(l.changes()).isEqualTo(3);
        assertThat(l.lagMs()).as("a target lacking a change is behind").isPositive();
        assertThat(l.toUnitLag().lagMs()).isPositive();
    }

    @Test
    void aHomeWithNothingKept_isCaughtUpEverywhere_evenUnwritten() {
        Map<Region, UnitPositions> all = new LinkedHashMap<>();
        all.put(CN, UnitPositions.of(T0, Map.of(), Map.of()));
        all.put(EU, UnitPositions.of(T0, Map.of(), Map.of()));
        assertThat(UnitLinks.of(all, Map.of("u-sh", CN, "u-de", EU))).containsExactly(
                new UnitLink("u-sh", CN, EU, 0, 0, true, T0), new UnitLink("u-de", EU, CN, 0, 0, true, T0));
    }

    @Test
    void aRegionThatReadsNoPositions_hasNoLinks() {
        Map<Region, UnitPositions> all = new LinkedHashMap<>();
        all.put(CN, writer(T0));
        all.put(EU, UnitPositions.NONE);
        all.put(US, reader(T0, 30));
        List<UnitLink> links = UnitLinks.of(all, Map.of("u-sh", CN));
        assertThat(links).extracting(UnitLink::to).containsExactly(US);
        assertThat(UnitLinks.lagsFrom(CN, links)).containsExactly(new UnitLag("u-sh", US, 0, T0, 0));
    }

    @Test
    void aReportOfItsOwnAppliedPositions_isRefused() {
        assertThatThrownBy(() -> new HealthReport(CN, 1, T0, io.unitas.core.RegionHealth.up(), Map.of(), List.of(),
                                                  reader(T0, 1)))
                .hasMessageContaining("positions.applied.cn: the reporting region itself");
    }
}
