package io.unitas.core.routing;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import io.unitas.core.HealthSnapshot;
import io.unitas.core.ProblemDetail;
import io.unitas.core.ProblemType;
import io.unitas.core.ReadOnlyPolicy;
import io.unitas.core.Region;
import io.unitas.core.RegionHealth;
import io.unitas.core.Topology;
import io.unitas.core.fence.FencePolicy;
import io.unitas.core.fence.WriteFences;
import io.unitas.core.rules.KeySource;
import io.unitas.core.rules.KeyTransform;
import io.unitas.core.rules.RequestView;
import io.unitas.core.rules.UnitRules;

/**
 * The one routing decision, rule by rule: users 0~4999 in u-cn (home cn), 5000~9999 in u-eu (home eu), decided by
 * the cn gateway at a fixed time.
 */
class RoutingDecisionTest {

    private static final Region CN = Region.of("cn");
    private static final Region EU = Region.of("eu");
    private static final long NOW = 1_700_000_000_000L;

    private final AtomicLong nanos = new AtomicLong();
    private final RoutingDecision cn = RoutingDecision.of(CN, ReadOnlyPolicy.FENCE);

    private static UnitRules rules(Topology topology, Double cnLoad) {
        return UnitRules.builder().unit("u-cn", "cn", cnLoad).unit("u-eu", "eu")
                        .source(KeySource.header("x-user-id")).transform(KeyTransform.mod(10_000))
                        .range(0, 4999, "u-cn").range(5000, 9999, "u-eu").build(topology);
    }

    private RoutingSnapshot state(Map<Region, RegionHealth> health, WriteFences fences) {
        Topology t = Topology.of("cn", "eu");
        return RoutingSnapshot.of(rules(t, null), HealthSnapshot.of(health), fences, nanos::get, NOW);
    }

    private static Map<Region, RegionHealth> up() {
        return Map.of(CN, RegionHealth.up(), EU, RegionHealth.up());
    }

    private static RequestView user(String id) {
        return new RequestView() {
            @Override
            public String header(String name) {
                return "x-user-id".equals(name) ? id : null;
            }

            @Override
            public String cookie(String name) {
                return null;
            }

            @Override
            public String query(String name) {
                return null;
            }

            @Override
            public String host() {
                return null;
            }
        };
    }

    @Test
    void aHealthyHome_forwardsHome_andTheSameRouteIsTheSameValue() {
        RoutingSnapshot s = state(up(), WriteFences.none());
        Verdict first = cn.decide(s, "GET", "/cart", user("42"), null, NOW);
        assertThat(first).isEqualTo(new Verdict.Forward("u-cn", CN, CN, "home", null));
        assertThat(cn.decide(s, "GET", "/cart", user("43"), null, NOW)).isSameAs(first);
    }

    @Test
    void aWriteToAReadOnlyHome_isRefused_readsStillPass() {
        RoutingSnapshot s = state(Map.of(CN, new RegionHealth(true, false, 0, 1, List.of()), EU, RegionHealth.up()),
                                  WriteFences.none());
        Verdict.Refuse write = (Verdict.Refuse) cn.decide(s, "POST", "/cart", user("42"), null, NOW);
        assertThat(write.type()).isEqualTo(ProblemType.READ_ONLY);
        assertThat(write.detail()).isEqualTo(
                "writes for home region cn are refused: cn is read-only (unit u-cn); reads still pass");
        assertThat(write.retryAfter()).isEqualTo(RoutingDecision.DEFAULT_RETRY_AFTER);
        assertThat(cn.decide(s, "GET", "/cart", user("42"), null, NOW)).isInstanceOf(Verdict.Forward.class);
        Verdict moved = RoutingDecision.of(CN, ReadOnlyPolicy.FAILOVER).decide(s, "POST", "/cart", user("42"), null,
                                                                               NOW);
        assertThat(moved.target()).isEqualTo(EU);
        assertThat(moved.route()).isEqualTo("write_failover");
    }

    @Test
    void noHealthyRegion_isA503_retriedInFiveSeconds() {
        RoutingSnapshot s = state(Map.of(CN, RegionHealth.down(), EU, RegionHealth.down()), WriteFences.none());
        ProblemDetail p = ((Verdict.Refuse) cn.decide(s, "GET", "/", user("42"), null, NOW)).problem();
        assertThat(p.status()).isEqualTo(503);
        assertThat(p.type()).isEqualTo("no-healthy-region");
        assertThat(p.retryAfter()).isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void aMissingKey_isA400_butAUnitTheServiceKnows_standsInForIt() {
        RoutingSnapshot s = state(up(), WriteFences.none());
        Verdict.Refuse missing = (Verdict.Refuse) cn.decide(s, "GET", "/", user(null), null, NOW);
        assertThat(missing.type()).isEqualTo(ProblemType.MISSING_ROUTING_KEY);
        assertThat(missing.problem().status()).isEqualTo(400);
        Verdict known = cn.decide(s, "GET", "/", user(null), null, "u-eu", NOW);
        assertThat(known).isEqualTo(new Verdict.Forward("u-eu", EU, EU, "home", null));
    }

    @Test
    void aFencedUnitsWrite_isRefusedWithTheFencesWait_itsReadsAndOtherUnitsPass() {
        RoutingSnapshot s = state(up(), WriteFences.of(Map.of("u-cn", FencePolicy.reject(Duration.ofSeconds(7)))));
        Verdict.Refuse write = (Verdict.Refuse) cn.decide(s, "POST", "/cart", user("42"), null, NOW);
        assertThat(write.problem()).isEqualTo(ProblemType.WRITE_FENCED.problem(
                "writes of unit u-cn are fenced while its data moves; reads still pass", Duration.ofSeconds(7)));
        assertThat(List.of(write.unit(), write.target().id(), write.route())).containsExactly("u-cn", "cn", "home");
        assertThat(cn.decide(s, "GET", "/cart", user("42"), null, NOW)).isInstanceOf(Verdict.Forward.class);
        assertThat(cn.decide(s, "POST", "/cart", user("6000"), null, NOW)).isInstanceOf(Verdict.Forward.class);
    }

    @Test
    void aThrottledUnit_letsItsBurstThrough_thenWaits_untilItsTickerMoves() {
        RoutingSnapshot s = state(up(), WriteFences.of(Map.of("u-cn", FencePolicy.throttle(1, 2,
                                                                                           Duration.ofSeconds(1)))));
        assertThat(cn.decide(s, "PUT", "/a", user("1"), null, NOW)).isInstanceOf(Verdict.Forward.class);
        assertThat(cn.decide(s, "PUT", "/a", user("1"), null, NOW)).isInstanceOf(Verdict.Forward.class);
        Verdict.Refuse third = (Verdict.Refuse) cn.decide(s, "PUT", "/a", user("1"), null, NOW);
        assertThat(third.detail()).isEqualTo("writes of unit u-cn are throttled while its data catches up in cn");
        assertThat(third.retryAfter()).isEqualTo(Duration.ofSeconds(1));
        RoutingSnapshot next = s.next(s.rules(), s.health(), s.fences(), NOW);
        assertThat(cn.decide(next, "PUT", "/a", user("1"), null, NOW)).as("the emptied bucket carries over")
                                                                       .isInstanceOf(Verdict.Refuse.class);
        nanos.addAndGet(Duration.ofSeconds(1).toNanos());
        assertThat(cn.decide(next, "PUT", "/a", user("1"), null, NOW)).isInstanceOf(Verdict.Forward.class);
    }

    @Test
    void aPreroutedRequest_goesWhereTheStampSays_fencedByItsKeysUnit() {
        RoutingSnapshot s = state(up(), WriteFences.of(Map.of("u-eu", FencePolicy.reject(Duration.ofSeconds(3)))));
        assertThat(cn.decide(s, "GET", "/", user("42"), "eu", NOW))
                .isEqualTo(new Verdict.Forward("u-cn", CN, EU, RoutingDecision.PREROUTED, null));
        Verdict.Refuse mars = (Verdict.Refuse) cn.decide(s, "GET", "/", user("42"), "mars", NOW);
        assertThat(mars.detail()).isEqualTo("x-unitas-region: 'mars' names no region of the topology");
        Verdict.Refuse unknownUnit = (Verdict.Refuse) cn.decide(s, "POST", "/", user(null), "eu", NOW);
        assertThat(unknownUnit.type()).isEqualTo(ProblemType.WRITE_FENCED);
        assertThat(((Verdict.Refuse) cn.decide(s, "POST", "/", user("6000"), "eu", NOW)).type())
                .isEqualTo(ProblemType.WRITE_FENCED);
    }

    @Test
    void aDownHomesUsers_spillOverByTheirKeysBand_whenThereAreCapacitiesAndLoads() {
        Topology t = Topology.builder().region("cn", 10.0).region("eu", 4.0).region("us", 100.0).build();
        RoutingSnapshot s = RoutingSnapshot.of(rules(t, 10.0), HealthSnapshot.ofFlags(Map.of(CN, false, EU, true,
                Region.of("us"), true)), WriteFences.none(), nanos::get, NOW);
        assertThat(s.spills()).isTrue();
        Map<String, Integer> byRoute = new java.util.TreeMap<>();
        for (int i = 0; i < 1_000; i++) {
            Verdict v = cn.decide(s, "GET", "/", user(String.valueOf(i * 10_000 + 7)), null, NOW);
            byRoute.merge(v.target() + "," + v.route(), 1, Integer::sum);
            assertThat(v).isEqualTo(new Verdict.Forward("u-cn", CN, v.target(), v.route(), null));
            assertThat(RoutingDecision.region(s, "cn", String.valueOf(i * 10_000 + 7), false, ReadOnlyPolicy.FENCE,
                                              NOW).target()).isEqualTo(v.target());
        }
        assertThat(byRoute).containsOnlyKeys("eu,failover", "us,spillover");
    }

    @Test
    void theCatalog_findsItsTypesByNameOrUri_andKnowsNoOthers() {
        assertThat(ProblemType.of("write-fenced")).isSameAs(ProblemType.WRITE_FENCED);
        assertThat(ProblemType.of("urn:unitas:problem:not-home-region")).isSameAs(ProblemType.NOT_HOME_REGION);
        assertThat(ProblemType.NOT_HOME_REGION.status()).isEqualTo(421);
        assertThat(ProblemType.of("about:blank")).isNull();
        assertThat(ProblemType.WRITE_FENCED.is(ProblemType.WRITE_FENCED.problem("x"))).isTrue();
    }
}
