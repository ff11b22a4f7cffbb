package io.unitas.dns;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.unitas.config.internal.ConfigDocument;
import io.unitas.config.TopologyFile;
import io.unitas.config.UnitRulesFile;
import io.unitas.control.client.state.StateHolder;
import io.unitas.core.HealthSnapshot;
import io.unitas.core.ReadOnlyPolicy;
import io.unitas.core.Region;
import io.unitas.core.RouteDecision;
import io.unitas.core.Topology;
import io.unitas.core.fence.WriteFences;
import io.unitas.core.routing.RoutingDecision;
import io.unitas.core.rules.UnitRules;

/**
 * DNS's region-level answer is the routing decision's, spillover included: with capacities in the topology and unit
 * loads in the rules, the clients of a down region are spread over its fallback regions by band, as the gateway
 * spreads their users, instead of all being sent to the first.
 */
class DnsSpilloverTest {

    private static final long NOW = 1_700_000_000_000L;

    @TempDir
    Path dir;

    @Test
    void theClientsOfADownRegion_spillOverByBand_asTheDecisionSays() throws Exception {
        // cn (load 10) is down; eu has room for 4 of it: its band takes about 40% of cn's clients, us the rest.
        Topology topology = TopologyFile.parse(ConfigDocument.parse("topology.yaml", """
                regions: [{id: cn, capacity: 20}, {id: eu, capacity: 14}, {id: us, capacity: 100}]
                """));
        UnitRules rules = UnitRulesFile.parse(ConfigDocument.parse("rules.yaml", """
                units:
                  - {id: u-cn, region: cn, load: 10}
                  - {id: u-eu, region: eu, load: 10}
                  - {id: u-us, region: us, load: 10}
                key: {sources: [{header: x-user-id}], transform: hash-mod 3, missing: reject}
                ranges: [{range: 0~0, unit: u-cn}, {range: 1~1, unit: u-eu}, {range: 2~2, unit: u-us}]
                """), topology);
        HealthSnapshot health = HealthSnapshot.ofFlags(Map.of(Region.of("cn"), false, Region.of("eu"), true,
                                                              Region.of("us"), true));
        StateHolder holder = new StateHolder(() -> 0L, Clock.fixed(Instant.ofEpochMilli(NOW), ZoneOffset.UTC),
                                             Duration.ZERO);
        holder.publish(1, topology, rules, health, WriteFences.none());
        Responder responder = new Responder(DnsConfig.read(ZoneFiles.write(dir)), holder,
                                            Clock.fixed(Instant.ofEpochMilli(NOW), ZoneOffset.UTC), () -> 0L,
                                            new DnsMetrics());

        Map<String, Integer> byRegion = new LinkedHashMap<>();
        for (int i = 0; i < 256; i++) {
            String subnet = "10.1." + i + ".0";
            byte[] answer = ask(responder, RawDns.query(i, "www.shop.example.", 1, 1232, subnet, 24));
            String ip = RawDns.Answer.read(answer).answers().get(0).address();
            String region = ip.startsWith("10.0.2.") ? "eu" : ip.startsWith("10.0.3.") ? "us" : "cn";
            RouteDecision expected = RoutingDecision.region(holder.get().snapshot(), "cn",
                                                            AnswerPlan.clientKey(InetAddress.getByName(subnet)
                                                                                         .getAddress(), 24),
                                                            false, ReadOnlyPolicy.FENCE, NOW);
            assertThat(region).as(subnet).isEqualTo(expected.target().id());
            byRegion.merge(region, 1, Integer::sum);
        }
        assertThat(byRegion).containsOnlyKeys("eu", "us");
        assertThat(byRegion.get("eu")).isBetween(70, 140);
    }

    private static byte[] ask(Responder responder, byte[] query) {
        ByteBuf answer = responder.respond(Unpooled.wrappedBuffer(query), InetAddress.getLoopbackAddress(), true,
                                           ByteBufAllocator.DEFAULT);
        try {
            return ByteBufUtil.getBytes(answer);
        } finally {
            answer.release();
        }
    }
}
