package io.unitas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.unitas.config.internal.ConfigDocument;
import io.unitas.config.HealthFile;
import io.unitas.config.TopologyFile;
import io.unitas.config.UnitRulesFile;
import io.unitas.control.client.state.RoutingState;
import io.unitas.core.HealthSnapshot;
import io.unitas.core.ReadOnlyPolicy;
import io.unitas.core.Region;
import io.unitas.core.Topology;
import io.unitas.core.fence.WriteFences;
import io.unitas.core.routing.RoutingDecision;
import io.unitas.core.routing.Verdict;
import io.unitas.core.rules.RequestView;
import io.unitas.core.rules.UnitRules;

/**
 * The offline prediction and the live behaviour are one function: for the same users, the same capacities, loads
 * and health, {@code unitas replay --spillover} and the core's {@link RoutingDecision} (which the gateway forwards by)
 * send every user to the same region for the same reason. The gateway knows no users: it reads each home's load from the unit rules, whose
 * unit loads are here the number of users of the unit, each of load 1 in the users file.
 */
class SpilloverAgreementTest {

    private static final int USERS = 3_000;
    private static final long NOW = 1_700_000_000_000L;

    @TempDir
    Path dir;

    @Test
    void replaySpillover_andTheGatewaysDecisions_agreeUserByUser() throws IOException {
        String health = "{\"cn\": false, \"eu\": true, \"us\": true}";
        Files.writeString(dir.resolve("health.json"), health);
        // Which unit each user is in does not depend on loads or capacities: read it from rules without them.
        Topology plain = TopologyFile.parse(ConfigDocument.parse("topology.yaml", "regions: [cn, eu, us]\n"));
        UnitRules unloaded = rules(plain, Map.of());
        Map<String, Integer> usersOfUnit = new LinkedHashMap<>();
        Map<String, Integer> usersOfHome = new LinkedHashMap<>();
        List<String> ids = new ArrayList<>();
        StringBuilder csv = new StringBuilder("user_id,region,load\n");
        for (int i = 0; i < USERS; i++) {
            String id = "user-" + i;
            var lookup = unloaded.lookup(view(id));
            usersOfUnit.merge(lookup.unit().id(), 1, Integer::sum);
            usersOfHome.merge(lookup.region().id(), 1, Integer::sum);
            ids.add(id);
            csv.append(id).append(',').append(lookup.region().id()).append(",1\n");
        }
        Files.writeString(dir.resolve("users.csv"), csv);
        // cn is down with about 1,500 users: eu has room for 300 of them, us for 600, the rest overflow to eu.
        String topologyYaml = "regions:\n  - {id: cn, capacity: " + USERS + "}\n"
                              + "  - {id: eu, capacity: " + (usersOfHome.get("eu") + 300) + "}\n"
                              + "  - {id: us, capacity: " + (usersOfHome.get("us") + 600) + "}\n";
        Files.writeString(dir.resolve("topology.yaml"), topologyYaml);
        Topology topology = TopologyFile.read(dir.resolve("topology.yaml"));
        UnitRules rules = rules(topology, usersOfUnit);

        List<String[]> predicted = replay();

        HealthSnapshot snapshot = HealthFile.parse(ConfigDocument.parse("health.json", health), topology);
        RoutingState state = RoutingState.of(1, rules, snapshot, WriteFences.none(), null, () -> 0L, NOW,
                                             Duration.ZERO);
        RoutingDecision decision = RoutingDecision.of(Region.of("eu"), ReadOnlyPolicy.FENCE);

        Map<String, Integer> byReason = new LinkedHashMap<>();
        assertThat(predicted).hasSize(USERS);
        for (int i = 0; i < USERS; i++) {
            String[] row = predicted.get(i);
            Verdict d = decision.decide(state.snapshot(), "GET", "/cart", view(ids.get(i)), null, NOW);
            assertThat(row[0]).isEqualTo(ids.get(i));
            assertThat(d.target().id() + "," + d.route()).as(ids.get(i)).isEqualTo(row[2] + "," + row[3]);
            byReason.merge(d.route(), 1, Integer::sum);
        }
        // Every kind of placement occurs, so agreement is not agreement on plain failover.
        assertThat(byReason).containsOnlyKeys("home", "failover", "spillover", "overflow");
        assertThat(byReason.get("failover")).isBetween(200, 400);
        assertThat(byReason.get("spillover")).isBetween(500, 700);
    }

    @Test
    void aWriteFollowsItsBand_butStaysOnTheRoutedRegionWhereTheBandsRegionIsReadOnly() throws IOException {
        // cn down with a load of 10; eu has 2 of room, us the rest: most of cn's users are in us's band.
        Files.writeString(dir.resolve("topology.yaml"), "regions:\n  - cn\n  - {id: eu, capacity: 2}\n  - us\n");
        Topology topology = TopologyFile.read(dir.resolve("topology.yaml"));
        UnitRules rules = rules(topology, Map.of("u-cn1", 5, "u-cn2", 5));
        RoutingDecision decision = RoutingDecision.of(Region.of("eu"), ReadOnlyPolicy.FENCE);
        String id = null;
        for (int i = 0; id == null; i++) { // a cn user past eu's band
            String candidate = "user-" + i;
            if (rules.lookup(view(candidate)).region().id().equals("cn")
                && io.unitas.core.capacity.SpilloverBands.position(candidate) > Long.MAX_VALUE / 5 * 2) {
                id = candidate;
            }
        }
        for (String usWritable : List.of("true", "false")) {
            String health = "{\"cn\": false, \"eu\": true, \"us\": {\"healthy\": true, \"writable\": "
                            + usWritable + "}}";
            HealthSnapshot snapshot = HealthFile.parse(ConfigDocument.parse("health.json", health), topology);
            RoutingState state = RoutingState.of(1, rules, snapshot, WriteFences.none(), null, () -> 0L, NOW,
                                                 Duration.ZERO);
            Verdict read = decision.decide(state.snapshot(), "GET", "/cart", view(id), null, NOW);
            Verdict write = decision.decide(state.snapshot(), "POST", "/cart", view(id), null, NOW);
            assertThat(read.target().id() + "," + read.route()).isEqualTo("us,spillover");
            assertThat(write.target().id() + "," + write.route())
                    .isEqualTo(usWritable.equals("true") ? "us,spillover" : "eu,failover");
        }
    }

    private UnitRules rules(Topology topology, Map<String, Integer> loads) {
        String yaml = "units:\n"
                      + unit("u-cn1", "cn", loads) + unit("u-cn2", "cn", loads)
                      + unit("u-eu", "eu", loads) + unit("u-us", "us", loads)
                      + "key: {sources: [{header: x-user-id}], transform: hash-mod 100, missing: reject}\n"
                      + "ranges:\n  - {range: 0~24, unit: u-cn1}\n  - {range: 25~49, unit: u-cn2}\n"
                      + "  - {range: 50~74, unit: u-eu}\n  - {range: 75~99, unit: u-us}\n";
        try {
            Files.writeString(dir.resolve("rules.yaml"), yaml);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return UnitRulesFile.read(dir.resolve("rules.yaml"), topology);
    }

    private static String unit(String id, String region, Map<String, Integer> loads) {
        Integer load = loads.get(id);
        return "  - {id: " + id + ", region: " + region + (load == null ? "" : ", load: " + load) + "}\n";
    }

    /** {@code unitas replay --spillover}'s rows, without the header. */
    private List<String[]> replay() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = Main.run(new PrintStream(out, true, StandardCharsets.UTF_8),
                            new PrintStream(err, true, StandardCharsets.UTF_8),
                            "replay", "--topology", dir.resolve("topology.yaml").toString(),
                            "--health", dir.resolve("health.json").toString(),
                            "--users", dir.resolve("users.csv").toString(), "--spillover");
        assertThat(exit).as(err.toString(StandardCharsets.UTF_8)).isZero();
        List<String[]> rows = new ArrayList<>();
        String[] lines = out.toString(StandardCharsets.UTF_8).split("\n");
        for (int i = 1; i < lines.length; i++) {
            rows.add(lines[i].split(",", -1));
        }
        return rows;
    }

    private static RequestView view(String userId) {
        return new RequestView() {
            @Override
            public String header(String name) {
                return "x-user-id".equals(name) ? userId : null;
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
}
