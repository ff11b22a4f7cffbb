package io.unitas.core.rules;

import java.util.Map;

import io.unitas.core.Topology;

/** The rule set most tests start from: three units over cn, eu, us (center cn), keys mod 10000. */
final class RulesFixtures {

    static final Topology TOPOLOGY = Topology.builder().region("cn").region("eu").region("us").center("cn").build();

    private RulesFixtures() {}

    static UnitRules.Builder threeUnits() {
        return UnitRules.builder()
                .unit("u-cn", "cn").unit("u-eu", "eu").unit("u-us", "us")
                .source(KeySource.header("x-user-id"))
                .source(KeySource.cookie("uid"))
                .source(KeySource.query("user_id"))
                .source(KeySource.domainPrefix())
                .transform(KeyTransform.mod(10_000))
                .range(0, 3999, "u-cn").range(4000, 6999, "u-eu").range(7000, 9999, "u-us")
                .domain("shanghai", "u-cn").domain("paris", "u-eu").domain("newyork", "u-us")
                .strategies(Map.of());
    }

    static RequestView header(String name, String value) {
        return RequestView.ofHeaders(Map.of(name, value));
    }
}
