package io.unitas.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** Where a unit's writes may be served: at home, or where the routing state sends them now, and nowhere else. */
class WriteGuardTest {

    private static final Region CN = Region.of("cn");
    private static final Region EU = Region.of("eu");
    private static final Region US = Region.of("us");
    private static final Router ROUTER = Router.of(Topology.of("cn", "eu", "us"), Duration.ofSeconds(5));
    private static final long NOW = 1_000_000L;

    private static HealthSnapshot health(RegionHealth cn, RegionHealth eu, RegionHealth us) {
        return HealthSnapshot.of(Map.of(CN, cn, EU, eu, US, us));
    }

    private static final HealthSnapshot ALL_UP = health(RegionHealth.up(), RegionHealth.up(), RegionHealth.up());

    @Test
    void aWriteAtItsHome_isServed_whateverTheHealth() {
        assertThat(WriteGuard.judge(ROUTER, ALL_UP, US, US, NOW, ReadOnlyPolicy.FENCE).served()).isTrue();
        HealthSnapshot usDown = health(RegionHealth.up(), RegionHealth.up(), RegionHealth.down());
        WriteGuard.Verdict v = WriteGuard.judge(ROUTER, usDown, US, US, NOW, ReadOnlyPolicy.FENCE);
        assertThat(v.served()).isTrue();
        assertThat(v.route()).isEqualTo("home");
    }

    @Test
    void aWriteOfAUsUnitReachingEu_whileUsServes_isRefused_namingBothRegions() {
        WriteGuard.Verdict v = WriteGuard.judge(ROUTER, ALL_UP, US, EU, NOW, ReadOnlyPolicy.FENCE);
        assertThat(v.served()).isFalse();
        assertThat(v.route()).isEqualTo("home");
        assertThat(v.message("u-us")).isEqualTo("a write of unit u-us reached region eu, which does not take its"
                + " writes: its home region is us; send it through a unitas gateway, which routes it there");
    }

    @Test
    void aFailover_takesTheWritesWhereTheRouterSendsThem_andOnlyThere() {
        HealthSnapshot usDown = health(RegionHealth.up(), RegionHealth.up(), RegionHealth.down());
        WriteGuard.Verdict atCn = WriteGuard.judge(ROUTER, usDown, US, CN, NOW, ReadOnlyPolicy.FENCE);
        assertThat(atCn.served()).isTrue();
        assertThat(atCn.route()).isEqualTo("failover");
        WriteGuard.Verdict atEu = WriteGuard.judge(ROUTER, usDown, US, EU, NOW, ReadOnlyPolicy.FENCE);
        assertThat(atEu.served()).as("without capacities there is no spillover: cn takes them").isFalse();
        assertThat(atEu.message("u-us")).contains("its writes go to cn (failover)");
    }

    @Test
    void aHomeComingBack_isHeldDown_soTheFailoverRegionKeepsTakingItsWrites() {
        HealthSnapshot usBack = health(RegionHealth.up(), RegionHealth.up(), RegionHealth.up().healthySince(NOW - 2_000));
        assertThat(WriteGuard.judge(ROUTER, usBack, US, CN, NOW, ReadOnlyPolicy.FENCE).served()).isTrue();
        assertThat(WriteGuard.judge(ROUTER, usBack, US, US, NOW, ReadOnlyPolicy.FENCE).served()).isTrue();
        assertThat(WriteGuard.judge(ROUTER, usBack, US, CN, NOW + 3_000, ReadOnlyPolicy.FENCE).served())
                .as("the hold-down is over: us takes them again").isFalse();
    }

    @Test
    void aReadOnlyHome_keepsItsWritesUnderFence_andSendsThemOnUnderFailover() {
        RegionHealth readOnly = new RegionHealth(true, false, 0, 1.0, List.of("read-only"));
        HealthSnapshot usReadOnly = health(RegionHealth.up(), RegionHealth.up(), readOnly);
        assertThat(WriteGuard.judge(ROUTER, usReadOnly, US, CN, NOW, ReadOnlyPolicy.FENCE).served()).isFalse();
        WriteGuard.Verdict v = WriteGuard.judge(ROUTER, usReadOnly, US, CN, NOW, ReadOnlyPolicy.FAILOVER);
        assertThat(v.served()).isTrue();
        assertThat(v.route()).isEqualTo("write_failover");
    }

    @Test
    void withCapacities_aSpilloverRegionOfTheFallbackList_takesTheWrites() {
        Topology sized = Topology.builder().region("cn", 100.0).region("eu", 100.0).region("us", 100.0).build();
        Router router = Router.of(sized, Duration.ofSeconds(5));
        HealthSnapshot usDown = health(RegionHealth.up(), RegionHealth.up(), RegionHealth.down());
        WriteGuard.Verdict v = WriteGuard.judge(router, usDown, US, EU, NOW, ReadOnlyPolicy.FENCE);
        assertThat(v.served()).isTrue();
        assertThat(v.route()).isEqualTo("spillover");
        HealthSnapshot usAndEuDown = health(RegionHealth.up(), RegionHealth.down(), RegionHealth.down());
        assertThat(WriteGuard.judge(router, usAndEuDown, US, EU, NOW, ReadOnlyPolicy.FENCE).served())
                .as("a down region takes nothing").isFalse();
    }
}
