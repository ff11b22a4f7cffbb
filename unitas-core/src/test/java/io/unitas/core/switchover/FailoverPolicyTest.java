package io.unitas.core.switchover;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

import org.junit.jupiter.api.Test;

import io.unitas.core.HealthSnapshot;
import io.unitas.core.Problem;
import io.unitas.core.Region;
import io.unitas.core.RegionHealth;
import io.unitas.core.Topology;
import io.unitas.core.health.HealthReport;
import io.unitas.core.health.UnitLag;
import io.unitas.core.switchover.FailoverPolicy.Group;
import io.unitas.core.switchover.FailoverPolicy.Mode;
import io.unitas.core.switchover.FailoverPolicy.Move;

/** The policy's decision on a controlled clock: when a lasting fault moves units, where, and how. */
class FailoverPolicyTest {

    private static final Instant T0 = Instant.parse("2026-11-30T14:00:00Z");
    private static final Region CN = Region.of("cn");
    private static final Region EU = Region.of("eu");
    private static final Region US = Region.of("us");
    private static final Topology TOPOLOGY = Topology.builder().region("cn").region("eu").region("us").build();
    private static final Duration AFTER = Duration.ofSeconds(30);
    private static final Duration PROMOTE_AFTER = Duration.ofMinutes(2);
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final RegionHealth READ_ONLY = new RegionHealth(true, false, -1, 0.5, List.of("pg: read-only"));
    private static final Duration LAG_MAX_AGE = Duration.ofSeconds(10);

    private static Map<String, Region> homes() {
        Map<String, Region> homes = new LinkedHashMap<>();
        homes.put("u-sh", CN);
        homes.put("u-bj", CN);
        homes.put("u-de", EU);
        return homes;
    }

    private static HealthSnapshot health(RegionHealth cn, RegionHealth eu) {
        return HealthSnapshot.of(Map.of(CN, cn, EU, eu, US, RegionHealth.up()));
    }

    private static FailoverPolicy policy(Mode mode) {
        return new FailoverPolicy(List.of(new Group("cn-users", List.of(), CN, mode, AFTER, PROMOTE_AFTER, TIMEOUT)));
    }

    /** A report of {@code region} that measures, at {@code at}, each of its units' lag to the other regions. */
    private static HealthReport measuring(Region region, Instant at) {
        List<UnitLag> lags = homes().entrySet().stream().filter(e -> e.getValue().equals(region))
                .flatMap(e -> TOPOLOGY.regions().stream().filter(r -> !r.equals(region))
                        .map(to -> new UnitLag(e.getKey(), to, 900, at))).toList();
        return new HealthReport(region, 1, at, RegionHealth.up(), Map.of(), lags);
    }

    /** Every region reports; cn's report measures its units' lag as of {@code faulted}, unless it is silent. */
    private static List<Move> due(FailoverPolicy policy, HealthSnapshot health, boolean cnReporting, Duration faulted) {
        return due(policy, health, r -> !r.equals(CN) || cnReporting ? Optional.of(measuring(r, T0.plus(faulted)))
                                                                     : Optional.empty(), faulted);
    }

    private static List<Move> due(FailoverPolicy policy, HealthSnapshot health,
                                  Function<Region, Optional<HealthReport>> trusted, Duration faulted) {
        return policy.due(TOPOLOGY, health, homes(), Map.of(CN, T0), trusted, LAG_MAX_AGE, T0.plus(faulted));
    }

    @Test
    void aReadOnlyHomeThatStillReports_movesItsUnitsByASwitchover_onceAfterHasPassed() {
        HealthSnapshot health = health(READ_ONLY, RegionHealth.up());

        assertThat(due(policy(Mode.AUTOMATIC), health, true, AFTER.minusMillis(1))).isEmpty();
        assertThat(due(policy(Mode.AUTOMATIC), health, true, AFTER)).containsExactly(new Move("cn-users",
                Mode.AUTOMATIC, CN, EU, List.of("u-sh", "u-bj"), false,
                "cn unwritable since 2026-11-30T14:00:00Z (30000 ms >= after 30000 ms)"));
    }

    @Test
    void aHomeThatReportsButMeasuresNoLagOfItsUnits_getsNoSwitchoverThatCouldNotDrain_andIsPromotedAtPromoteAfter() {
        HealthSnapshot health = health(RegionHealth.down(), RegionHealth.up()); // its database stopped answering
        Function<Region, Optional<HealthReport>> cnWithoutLag = r -> Optional.of(r.equals(CN)
                ? new HealthReport(CN, 1, T0, RegionHealth.down(), Map.of()) : measuring(r, T0));

        assertThat(due(policy(Mode.AUTOMATIC), health, cnWithoutLag, AFTER)).as("a switchover waits on measured lag")
                                                                           .isEmpty();
        assertThat(due(policy(Mode.AUTOMATIC), health, cnWithoutLag, PROMOTE_AFTER)).singleElement()
                .satisfies(m -> {
                    assertThat(m.promote()).isTrue();
                    assertThat(m.why()).isEqualTo("cn unwritable since 2026-11-30T14:00:00Z (120000 ms >= "
                                                  + "promote_after 120000 ms)");
                });
    }

    @Test
    void aLagMeasuredLongerAgoThanItsMaxAge_isNoLagToSwitchOverOn() {
        HealthSnapshot health = health(READ_ONLY, RegionHealth.up());
        Function<Region, Optional<HealthReport>> measured = r -> Optional.of(measuring(r, T0));

        assertThat(due(policy(Mode.AUTOMATIC), health, measured, AFTER)).isEmpty();
        assertThat(due(policy(Mode.AUTOMATIC), health, r -> Optional.of(measuring(r, T0.plus(AFTER)
                .minus(LAG_MAX_AGE))), AFTER)).singleElement().extracting(Move::promote).isEqualTo(false);
    }

    @Test
    void anUnreachableHome_waitsForPromoteAfter_thenPromotes() {
        HealthSnapshot health = health(RegionHealth.down(), RegionHealth.up());

        assertThat(due(policy(Mode.AUTOMATIC), health, false, AFTER)).isEmpty();
        assertThat(due(policy(Mode.AUTOMATIC), health, false, PROMOTE_AFTER)).singleElement().satisfies(m -> {
            assertThat(m.promote()).isTrue();
            assertThat(m.why()).isEqualTo("cn unreachable since 2026-11-30T14:00:00Z (120000 ms >= promote_after "
                                          + "120000 ms)");
        });
    }

    @Test
    void aStuckBacklog_isPromotedToo_onceItsHomeHasBeenFaultedForPromoteAfter() {
        assertThat(due(policy(Mode.AUTOMATIC), health(READ_ONLY, RegionHealth.up()), true, PROMOTE_AFTER))
                .singleElement().extracting(Move::promote).isEqualTo(true);
    }

    @Test
    void withoutPromoteAfter_anUnreachableHomesUnitsNeverMoveByThemselves() {
        FailoverPolicy never = new FailoverPolicy(List.of(new Group("g", List.of(), CN, Mode.AUTOMATIC, AFTER, null,
                                                                    TIMEOUT)));

        assertThat(due(never, health(RegionHealth.down(), RegionHealth.up()), false, Duration.ofDays(1))).isEmpty();
    }

    @Test
    void theTarget_isTheFirstHealthyWritableRegionOfTheHomesFallbackOrder() {
        assertThat(due(policy(Mode.AUTOMATIC), health(READ_ONLY, READ_ONLY), true, AFTER))
                .singleElement().extracting(Move::to).isEqualTo(US);
        HealthSnapshot nowhere = HealthSnapshot.of(Map.of(CN, READ_ONLY, EU, READ_ONLY, US, RegionHealth.down()));
        assertThat(due(policy(Mode.AUTOMATIC), nowhere, true, AFTER)).isEmpty();
    }

    @Test
    void offMovesNothing_askProposes_andAUnitBelongsToTheFirstGroupThatCoversIt() {
        HealthSnapshot health = health(READ_ONLY, RegionHealth.up());
        assertThat(due(policy(Mode.OFF), health, true, AFTER)).isEmpty();
        assertThat(due(policy(Mode.ASK), health, true, AFTER)).singleElement().extracting(Move::mode)
                .isEqualTo(Mode.ASK);

        FailoverPolicy layered = new FailoverPolicy(List.of(
                new Group("keep-bj", List.of("u-bj"), null, Mode.OFF, AFTER, null, TIMEOUT),
                new Group("cn-users", List.of(), CN, Mode.AUTOMATIC, AFTER, null, TIMEOUT)));
        assertThat(due(layered, health, true, AFTER)).singleElement().extracting(Move::units)
                .isEqualTo(List.of("u-sh"));
    }

    @Test
    void aHomeThatIsFine_movesNothing() {
        assertThat(policy(Mode.AUTOMATIC).due(TOPOLOGY, health(RegionHealth.up(), RegionHealth.up()), homes(),
                                              Map.of(), r -> Optional.of(measuring(r, T0)), LAG_MAX_AGE,
                                              T0.plus(Duration.ofDays(1)))).isEmpty();
    }

    @Test
    void problems_nameUnknownUnitsAndRegionsAndRepeatedNames_byPath() {
        FailoverPolicy p = new FailoverPolicy(List.of(
                new Group("a", List.of("u-sh", "u-mars"), null, Mode.AUTOMATIC, AFTER, null, TIMEOUT),
                new Group("a", List.of(), Region.of("mars"), Mode.ASK, AFTER, null, TIMEOUT)));

        assertThat(p.problems(TOPOLOGY, Set.of("u-sh"))).containsExactly(
                new Problem("groups[0].units[1]", "unknown unit 'u-mars'"),
                new Problem("groups[1].name", "'a' given twice (expected: unique names)"),
                new Problem("groups[1].home", "unknown region 'mars'"));
        assertThatThrownBy(() -> new Group("b", List.of("u-sh"), CN, Mode.ASK, AFTER, null, TIMEOUT))
                .hasMessage("group b: both units and home (expected: one of units or home)");
    }
}
