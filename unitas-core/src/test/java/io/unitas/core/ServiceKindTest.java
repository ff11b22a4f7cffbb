package io.unitas.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.List;
import java.util.Map;

import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/** Where calls to core, global and shared services go (seed 004), by example and as properties. */
class ServiceKindTest {

    private static final Region CN = Region.of("cn");
    private static final Region EU = Region.of("eu");
    private static final Region US = Region.of("us");
    private static final Router ROUTER = Router.of(Topology.builder().region("cn").region("eu").region("us")
                                                           .center("cn").build());

    private static HealthSnapshot health(boolean cn, boolean eu, boolean us) {
        return HealthSnapshot.ofFlags(Map.of(CN, cn, EU, eu, US, us));
    }

    @Test
    void core_goesToTheUnitsHome_thenItsHealthyFallbacksInOrder() {
        ServiceKind.Placement p = ServiceKind.CORE.place(ROUTER, health(true, true, true), 0, "eu", "us", false);
        assertThat(p.regions()).containsExactly(EU, CN, US);
    }

    @Test
    void core_homeDown_failsOverInTheCoresOrder_neverToAnUnhealthyRegion() {
        ServiceKind.Placement p = ServiceKind.CORE.place(ROUTER, health(true, false, false), 0, "eu", "us", true);
        assertThat(p.regions()).containsExactly(CN);
    }

    @Test
    void core_nothingHealthy_isRefusedWithTheRoutersReason() {
        ServiceKind.Placement p = ServiceKind.CORE.place(ROUTER, health(false, false, false), 0, "eu", "eu", false);
        assertThat(p.allowed()).isFalse();
        assertThat(p.message()).isEqualTo("no healthy region for home region eu");
    }

    @Test
    void global_readsAndWritesGoToTheCenter_whateverTheCallersUnit() {
        assertThat(ServiceKind.GLOBAL.place(ROUTER, health(true, true, true), 0, "eu", "us", false).regions())
                .startsWith(CN);
        assertThat(ServiceKind.GLOBAL.place(ROUTER, health(true, true, true), 0, "eu", "us", true).regions())
                .containsExactly(CN);
    }

    @Test
    void global_centerDown_readsFailOver_writesAreRefused() {
        assertThat(ServiceKind.GLOBAL.place(ROUTER, health(false, true, true), 0, "us", "us", false).regions())
                .containsExactly(EU, US);
        ServiceKind.Placement write = ServiceKind.GLOBAL.place(ROUTER, health(false, true, true), 0, "us", "us", true);
        assertThat(write.allowed()).isFalse();
        assertThat(write.message()).startsWith("writes of a global service go to the center cn only");
    }

    @Test
    void global_withoutCenter_isRefused() {
        Router noCenter = Router.of(Topology.of("cn", "eu"));
        assertThat(ServiceKind.GLOBAL.place(noCenter, health(true, true, true), 0, "cn", "cn", false).message())
                .isEqualTo("a global service needs a center region; the topology has none");
    }

    @Test
    void shared_readsStayInTheCallersRegion_writesAreRefused() {
        assertThat(ServiceKind.SHARED.place(ROUTER, health(true, true, true), 0, "cn", "us", false).regions())
                .containsExactly(US);
        assertThat(ServiceKind.SHARED.place(ROUTER, health(true, true, true), 0, "cn", "us", true).allowed())
                .isFalse();
    }

    @Test
    void labels_roundTrip_andAnUnknownLabelIsNull() {
        for (ServiceKind k : ServiceKind.values()) {
            assertThat(ServiceKind.ofLabel(k.label())).isSameAs(k);
        }
        assertThat(ServiceKind.ofLabel("central")).isNull();
    }

    @Provide
    Arbitrary<Scenarios> scenarios() {
        return Scenarios.all();
    }

    @Property(tries = 200)
    void core_firstRegionIsTheRouteDecision_andEveryRegionIsHealthyAndListedOnce(@ForAll("scenarios") Scenarios s) {
        Router router = Router.of(s.topology());
        for (Region home : s.topology().regions()) {
            for (boolean write : new boolean[] {false, true}) {
                ServiceKind.Placement p = ServiceKind.CORE.place(router, s.health(), 0, home.id(), home.id(), write);
                RouteDecision d = router.route(home, s.health());
                assertThat(p.allowed()).isEqualTo(d.hasTarget());
                if (p.allowed()) {
                    assertThat(p.regions().get(0)).isEqualTo(d.target());
                }
                assertThat(p.regions()).allMatch(s.health()::isHealthy);
                assertThat(new HashSet<>(p.regions())).hasSameSizeAs(p.regions());
                List<Region> allowed = new java.util.ArrayList<>(s.topology().fallback(home));
                allowed.add(home);
                assertThat(allowed).containsAll(p.regions());
            }
        }
    }

    @Property(tries = 200)
    void sharedWrites_areAlwaysRefused_andSharedReadsNeverLeaveTheCaller(@ForAll("scenarios") Scenarios s) {
        Router router = Router.of(s.topology());
        for (Region self : s.topology().regions()) {
            assertThat(ServiceKind.SHARED.place(router, s.health(), 0, "zz", self.id(), true).allowed()).isFalse();
            assertThat(ServiceKind.SHARED.place(router, s.health(), 0, "zz", self.id(), false).regions())
                    .containsExactly(self);
        }
    }
}
