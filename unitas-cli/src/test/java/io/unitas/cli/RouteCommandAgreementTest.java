package io.unitas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;

import io.unitas.config.internal.ConfigDocument;
import io.unitas.config.HealthFile;
import io.unitas.config.TopologyFile;
import io.unitas.core.ReadOnlyPolicy;
import io.unitas.core.RouteDecision;
import io.unitas.core.Topology;
import io.unitas.core.fence.WriteFences;
import io.unitas.core.routing.RoutingDecision;
import io.unitas.core.routing.RoutingSnapshot;

/**
 * {@code unitas route} prints the routing decision's region-level part: for random health of three regions (down,
 * up, up and read-only), for every home, the printed region and the exit code are the decision's.
 */
class RouteCommandAgreementTest {

    @Property(tries = 60)
    void theRouteCommand_printsTheDecisionsRegion(@ForAll @Size(3) List<@net.jqwik.api.constraints.IntRange(
            min = 0, max = 2) Integer> states) throws IOException {
        Path dir = Files.createTempDirectory("unitas-route-agreement");
        try {
            String[] ids = {"cn", "eu", "us"};
            StringBuilder health = new StringBuilder("{");
            for (int i = 0; i < 3; i++) {
                health.append(i == 0 ? "" : ", ").append('"').append(ids[i]).append("\": ")
                      .append(states.get(i) == 0 ? "false" : states.get(i) == 1 ? "true"
                              : "{\"healthy\": true, \"writable\": false}");
            }
            String topologyFile = Cli.file(dir, "topology.yaml", "regions: [cn, eu, us]\n");
            String healthFile = Cli.file(dir, "health.json", health.append('}').toString());
            Topology topology = TopologyFile.read(Path.of(topologyFile));
            RoutingSnapshot s = RoutingSnapshot.of(topology, null, HealthFile.parse(ConfigDocument.parse(
                    "health.json", Files.readString(Path.of(healthFile))), topology), WriteFences.none(), () -> 0L,
                    Long.MAX_VALUE, Duration.ZERO);
            for (String home : ids) {
                Cli r = Cli.run("route", "--topology", topologyFile, "--health", healthFile, "--region", home);
                RouteDecision d = RoutingDecision.region(s, home, null, false, ReadOnlyPolicy.FENCE, Long.MAX_VALUE);
                if (d.hasTarget()) {
                    assertThat(r.exit()).isZero();
                    assertThat(r.out()).isEqualTo(d.target().id() + "\n");
                } else {
                    assertThat(r.exit()).isEqualTo(RouteCommand.EXIT_NO_HEALTHY_REGION);
                    assertThat(r.err()).isEqualTo("unitas route: " + d.message() + "\n");
                }
            }
        } finally {
            try (var files = Files.list(dir)) {
                for (Path p : files.toList()) {
                    Files.delete(p);
                }
            }
            Files.delete(dir);
        }
    }
}
