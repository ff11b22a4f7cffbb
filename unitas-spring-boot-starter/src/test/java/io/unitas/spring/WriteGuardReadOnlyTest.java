package io.unitas.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

import io.unitas.client.RoutingHeaders;
import io.unitas.client.RoutingSnapshot;
import io.unitas.config.TopologyFile;
import io.unitas.config.UnitRulesFile;
import io.unitas.core.HealthSnapshot;
import io.unitas.core.ReadOnlyPolicy;
import io.unitas.core.Region;
import io.unitas.core.RegionHealth;
import io.unitas.core.Topology;
import io.unitas.core.fence.WriteFences;
import io.unitas.core.rules.RequestView;
import io.unitas.core.rules.UnitRules;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The guard's {@code on-read-only}, as the gateways' {@code routing.on_read_only}: us, u-us's home, is up but read-only
 * and cn is down. With {@code fence} u-us's writes belong in us still (the gateway refuses them there, 503
 * read-only); with {@code failover} they go to the next admitted writable region of us's list, eu, and us refuses
 * them. User 80 is u-us's.
 */
class WriteGuardReadOnlyTest {

    private static final Path DIR = Path.of("src/test/resources/unitas");
    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);

    private static RoutingSnapshot usReadOnlyCnDown() {
        Topology topology = TopologyFile.read(DIR.resolve("topology.yaml"));
        UnitRules rules = UnitRulesFile.read(DIR.resolve("rules.yaml"), topology);
        HealthSnapshot health = HealthSnapshot.of(Map.of(
                Region.of("cn"), RegionHealth.down(),
                Region.of("eu"), RegionHealth.up(),
                Region.of("us"), new RegionHealth(true, false, 0, 1, List.of("read-only"))));
        return RoutingSnapshot.of(rules, health, WriteFences.none());
    }

    private static InboundContext.Accepted write(String region, ReadOnlyPolicy onReadOnly) {
        UnitasProperties.WriteGuard guard = new UnitasProperties.WriteGuard();
        guard.setOnReadOnly(onReadOnly);
        RoutingSnapshot snapshot = usReadOnlyCnDown();
        InboundContext inbound = new InboundContext(RoutingHeaders.DEFAULTS, () -> snapshot, true, region, CLOCK,
                                                    guard);
        RequestView user80 = new RequestView() {
            @Override
            public String header(String name) {
                return name.equals("x-user-id") ? "80" : null;
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
        return inbound.accept(user80, snapshot, "POST", "/orders");
    }

    @ParameterizedTest(name = "on-read-only {0}, a write in {1}: {2}")
    @CsvSource({"FENCE,    us, read_only,      served",
                "FENCE,    eu, off_route,      refused",
                "FAILOVER, eu, write_failover, served",
                "FAILOVER, us, off_route,      refused"})
    void aReadOnlyHomesWrites_belongWhereTheGatewaysPolicySendsThem(ReadOnlyPolicy policy, String region,
                                                                    String route, String answer) {
        InboundContext.Accepted accepted = write(region, policy);
        assertThat(accepted.route()).isEqualTo(route);
        if (answer.equals("served")) {
            assertThat(accepted.refusal()).isNull();
            assertThat(accepted.context().region()).isEqualTo(region);
        } else {
            assertThat(accepted.refusal().status()).isEqualTo(421);
            assertThat(accepted.refusal().detail()).contains("unit u-us", "not in " + region);
        }
    }
}
