package io.unitas.core.switchover;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import io.unitas.core.Region;
import io.unitas.core.RegionHealth;
import io.unitas.core.health.HealthReport;
import io.unitas.core.health.UnitLag;

class MovingLagTest {

    private static final Instant T0 = Instant.parse("2026-11-30T14:00:00Z");
    private static final Region CN = Region.of("cn");
    private static final Region EU = Region.of("eu");
    private static final Region US = Region.of("us");
    private static final Duration MAX_AGE = Duration.ofSeconds(5);
    private static final Map<String, Region> ORIGINS = Map.of("u-sh", CN, "u-bj", CN, "u-ny", US);

    private static HealthReport report(Region region, UnitLag... lags) {
        return new HealthReport(region, 1, T0, RegionHealth.up(), Map.of(), List.of(lags));
    }

    private static MovingLag of(List<String> units, Instant now, HealthReport... reports) {
        return MovingLag.of(units, ORIGINS, EU, region -> List.of(reports).stream()
                .filter(r -> r.region().equals(region)).findFirst(), now, MAX_AGE);
    }

    @Test
    void theLargestMovingUnitsLagFromItsOwnHome_countsNotTheOthers() {
        HealthReport cn = report(CN, new UnitLag("u-sh", EU, 120, T0), new UnitLag("u-bj", EU, 40, T0),
                                 new UnitLag("u-other", EU, 9_000, T0), new UnitLag("u-sh", US, 7_000, T0));
        HealthReport us = report(US, new UnitLag("u-ny", EU, 300, T0));

        assertThat(of(List.of("u-sh", "u-bj"), T0, cn, us))
                .isEqualTo(new MovingLag(120, "largest: u-sh lag 120 ms from cn to eu"));
        assertThat(of(List.of("u-sh", "u-ny"), T0.plusSeconds(1), cn, us).lagMs()).isEqualTo(300);
    }

    @Test
    void allCaughtUp_isZero() {
        HealthReport cn = report(CN, new UnitLag("u-sh", EU, 0, T0), new UnitLag("u-bj", EU, 0, T0));

        assertThat(of(List.of("u-sh", "u-bj"), T0, cn)).isEqualTo(new MovingLag(0, "u-sh, u-bj caught up in eu"));
    }

    @Test
    void aUnitItsHomeDoesNotReport_isUnknown_notZero() {
        HealthReport cn = report(CN, new UnitLag("u-sh", EU, 0, T0));

        MovingLag lag = of(List.of("u-sh", "u-bj"), T0, cn);

        assertThat(lag.known()).isFalse();
        assertThat(lag.detail()).isEqualTo("u-bj lag unknown: cn reports no lag of it to eu");
    }

    @Test
    void aHomeWithoutATrustedReport_isUnknown() {
        MovingLag lag = of(List.of("u-sh"), T0);

        assertThat(lag.lagMs()).isEqualTo(RegionHealth.UNKNOWN_LAG);
        assertThat(lag.detail()).isEqualTo("u-sh lag unknown: no fresh health report from its home cn");
    }

    @Test
    void aMeasurementOlderThanMaxAge_isUnknown_oneAtMaxAgeStillCounts() {
        HealthReport cn = report(CN, new UnitLag("u-sh", EU, 0, T0));

        assertThat(of(List.of("u-sh"), T0.plus(MAX_AGE), cn).lagMs()).isZero();
        MovingLag stale = of(List.of("u-sh"), T0.plus(MAX_AGE).plusMillis(1), cn);
        assertThat(stale.known()).isFalse();
        assertThat(stale.detail()).isEqualTo("u-sh lag unknown: cn measured it at 2026-11-30T14:00:00Z, more than "
                                             + "5000 ms ago");
    }

    @Test
    void aUnitWithoutARecordedHome_isUnknown() {
        assertThat(MovingLag.of(List.of("u-x"), Map.of(), EU, r -> Optional.empty(), T0, MAX_AGE).detail())
                .isEqualTo("u-x lag unknown: no home recorded");
    }

    @Test
    void aLagMeasuredBeforeTheFence_isUnknown_oneAtOrAfterItCounts() {
        HealthReport cn = report(CN, new UnitLag("u-sh", EU, 0, T0, 0));
        Instant fencedAt = T0.plusMillis(1);

        MovingLag before = MovingLag.of(List.of("u-sh"), ORIGINS, EU, r -> Optional.of(cn), T0.plusSeconds(1),
                                        MAX_AGE, fencedAt);
        assertThat(before.known()).as("writes before the fence may not be in it").isFalse();
        assertThat(before.detail()).isEqualTo("u-sh lag unknown: cn measured it at 2026-11-30T14:00:00Z, before the"
                                              + " fence at 2026-11-30T14:00:00.001Z");
        assertThat(MovingLag.of(List.of("u-sh"), ORIGINS, EU, r -> Optional.of(cn), T0.plusSeconds(1), MAX_AGE, T0)
                            .lagMs()).isZero();
    }

    @Test
    void aUnitLackingAChange_isNeverCaughtUp_evenAtZeroMs() {
        HealthReport cn = report(CN, new UnitLag("u-sh", EU, 0, T0, 1));

        MovingLag lag = of(List.of("u-sh"), T0, cn);
        assertThat(lag.lagMs()).as("one change not applied").isPositive();
        assertThat(lag.detail()).isEqualTo("u-sh lag 0 ms (1 change) from cn to eu");
    }

    @Test
    void aLagThatCountsItsChanges_saysHowMany() {
        HealthReport cn = report(CN, new UnitLag("u-sh", EU, 120, T0, 3));

        assertThat(of(List.of("u-sh"), T0, cn).detail()).isEqualTo("u-sh lag 120 ms (3 changes) from cn to eu");
    }
}
