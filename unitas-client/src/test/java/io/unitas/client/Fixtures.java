package io.unitas.client;

import java.util.Map;

import io.unitas.core.HealthSnapshot;
import io.unitas.core.Region;
import io.unitas.core.Topology;
import io.unitas.core.fence.WriteFences;
import io.unitas.core.rules.KeySource;
import io.unitas.core.rules.KeyTransform;
import io.unitas.core.rules.UnitRules;

/** The seed's three regions with cn as center, and one unit per region by {@code mod 100} of the user id. */
final class Fixtures {

    static final Topology TOPOLOGY = Topology.builder().region("cn").region("eu").region("us").center("cn").build();
    static final UnitRules RULES = UnitRules.builder()
            .unit("u-cn", "cn").unit("u-eu", "eu").unit("u-us", "us")
            .source(KeySource.header("x-user-id")).transform(KeyTransform.mod(100))
            .range(0, 32, "u-cn").range(33, 65, "u-eu").range(66, 99, "u-us")
            .build(TOPOLOGY);

    private Fixtures() {}

    static HealthSnapshot health(boolean cn, boolean eu, boolean us) {
        return HealthSnapshot.ofFlags(Map.of(Region.of("cn"), cn, Region.of("eu"), eu, Region.of("us"), us));
    }

    static RoutingSnapshot snapshot(boolean cn, boolean eu, boolean us) {
        return RoutingSnapshot.of(RULES, health(cn, eu, us), WriteFences.none());
    }
}
