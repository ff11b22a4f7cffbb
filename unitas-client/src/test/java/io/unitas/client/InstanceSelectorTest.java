package io.unitas.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import io.unitas.core.ServiceKind;
import org.junit.jupiter.api.Test;

/** Which registered instances a call may go to, by the request's unit, region health and the service's kind. */
class InstanceSelectorTest {

    /** A registered instance: its name and its registry metadata. */
    record Instance(String name, Map<String, String> metadata) {
        static Instance of(String name, String region, String... more) {
            Map<String, String> m = new HashMap<>();
            m.put(InstanceSelector.REGION, region);
            for (int i = 0; i < more.length; i += 2) {
                m.put(more[i], more[i + 1]);
            }
            return new Instance(name, m);
        }
    }

    private static final List<Instance> ALL = List.of(
            Instance.of("cn-1", "cn"), Instance.of("cn-2", "cn"),
            Instance.of("eu-1", "eu"), Instance.of("eu-gray", "eu", InstanceSelector.VERSION, "v2"),
            Instance.of("us-1", "us"));

    private final AtomicReference<RoutingSnapshot> state = new AtomicReference<>(Fixtures.snapshot(true, true, true));
    private final InstanceSelector selector = InstanceSelector.of(
            "us", state::get, Clock.fixed(Instant.EPOCH, ZoneOffset.UTC));

    private List<String> names(List<Instance> instances, RoutingContext context, ServiceKind kind, boolean write) {
        return selector.select(instances, Instance::metadata, context, kind, write).instances().stream()
                       .map(Instance::name).toList();
    }

    private List<String> names(RoutingContext context) {
        return names(ALL, context, ServiceKind.CORE, false);
    }

    @Test
    void aCnUsersCall_goesToCnInstancesOnly_whereverTheCallerRuns() {
        assertThat(names(new RoutingContext("u-cn", "cn", "eu", 1, null))).containsExactly("cn-1", "cn-2");
    }

    @Test
    void theUnitsHomeDecides_notAStaleRegionStamp() {
        assertThat(names(new RoutingContext("u-cn", "eu", null, 0, null))).containsExactly("cn-1", "cn-2");
    }

    @Test
    void grayVersion_isHonouredInTheTargetRegion_andUngrayRequestsAvoidTheGrayInstance() {
        assertThat(names(new RoutingContext("u-eu", "eu", null, 0, "v2"))).containsExactly("eu-gray");
        assertThat(names(new RoutingContext("u-eu", "eu", null, 0, null))).containsExactly("eu-1");
        assertThat(names(new RoutingContext("u-eu", "eu", null, 0, "v9"))).containsExactly("eu-1");
    }

    @Test
    void homeUnhealthy_failsOverInTheCoresOrder() {
        state.set(Fixtures.snapshot(false, true, true));
        assertThat(names(new RoutingContext("u-cn", "cn", null, 0, null))).containsExactly("eu-1");
    }

    @Test
    void targetWithoutInstances_failsOverToTheNextAdmittedRegion_neverToAnUnhealthyOne() {
        List<Instance> noCn = ALL.subList(2, ALL.size());
        state.set(Fixtures.snapshot(true, false, true));
        assertThat(names(noCn, new RoutingContext("u-cn", "cn", null, 0, null), ServiceKind.CORE, false))
                .containsExactly("us-1");
        List<Instance> onlyEu = ALL.subList(2, 4);
        InstanceSelection<Instance> none = selector.select(onlyEu, Instance::metadata,
                                                           new RoutingContext("u-cn", null, null, 0, null),
                                                           ServiceKind.CORE, false);
        assertThat(none.isEmpty()).isTrue();
        assertThat(none.reason()).isEqualTo("no instance in [cn, us] (home region cn is healthy)");
    }

    @Test
    void noStampNoKey_staysInTheServicesOwnRegion() {
        assertThat(names(RoutingContext.EMPTY)).containsExactly("us-1");
    }

    @Test
    void keylessRequestRoutedToTheCenter_followsTheStampedRegion() {
        assertThat(names(new RoutingContext(null, "cn", "eu", 1, null))).containsExactly("cn-1", "cn-2");
    }

    @Test
    void globalService_isCalledInTheCenter_andSharedInTheCallersRegion() {
        RoutingContext eu = new RoutingContext("u-eu", "eu", null, 0, null);
        assertThat(names(ALL, eu, ServiceKind.GLOBAL, true)).containsExactly("cn-1", "cn-2");
        assertThat(names(ALL, eu, ServiceKind.SHARED, false)).containsExactly("us-1");
        assertThat(selector.select(ALL, Instance::metadata, eu, ServiceKind.SHARED, true).isEmpty()).isTrue();
        state.set(Fixtures.snapshot(false, true, true));
        assertThat(names(ALL, eu, ServiceKind.GLOBAL, true)).isEmpty();
    }

    @Test
    void instancesDedicatedToAUnit_takeOnlyThatUnit() {
        List<Instance> dedicated = List.of(Instance.of("eu-a", "eu", InstanceSelector.UNIT, "u-eu-a"),
                                           Instance.of("eu-any", "eu"));
        assertThat(names(dedicated, new RoutingContext("u-eu", null, null, 0, null), ServiceKind.CORE, false))
                .containsExactly("eu-any");
    }

    @Test
    void aServiceWithoutRegionMetadata_isNotUnitAware_everyInstancePasses() {
        List<Instance> plain = List.of(new Instance("a", Map.of()), new Instance("b", Map.of()));
        InstanceSelection<Instance> s = selector.select(plain, Instance::metadata,
                                                        new RoutingContext("u-cn", "cn", null, 0, null),
                                                        ServiceKind.CORE, false);
        assertThat(s.instances()).isEqualTo(plain);
        assertThat(s.reason()).isEqualTo("no instance carries unitas.region: not unit-aware");
    }
}
