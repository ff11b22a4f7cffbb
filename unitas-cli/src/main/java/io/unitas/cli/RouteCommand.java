package io.unitas.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;

import io.unitas.config.HealthFile;
import io.unitas.config.TopologyFile;
import io.unitas.core.HealthSnapshot;
import io.unitas.core.Region;
import io.unitas.core.RouteDecision;
import io.unitas.core.Router;
import io.unitas.core.Topology;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** {@code unitas route}: the one route decision, for scripts. */
@Command(name = "route",
         description = "Print the region that serves a user whose home is --region.",
         exitCodeListHeading = "%nExit codes:%n",
         exitCodeList = {"0:the target region is printed", "2:invalid input", "3:unknown region",
                         "4:no healthy region"},
         mixinStandardHelpOptions = true)
final class RouteCommand implements Callable<Integer> {

    /** The home region is not in the topology. */
    static final int EXIT_UNKNOWN_REGION = 3;
    /** Neither the home nor any region it may fail over to is healthy. */
    static final int EXIT_NO_HEALTHY_REGION = 4;

    @ParentCommand
    Main main;

    @Option(names = "--topology", required = true, paramLabel = "FILE", description = "topology, YAML or JSON")
    Path topology;

    @Option(names = "--health", required = true, paramLabel = "FILE", description = "health snapshot, JSON")
    Path health;

    @Option(names = "--region", required = true, paramLabel = "ID", description = "the user's home region")
    String region;

    @Override
    public Integer call() {
        Topology t = TopologyFile.read(topology);
        HealthSnapshot h = HealthFile.read(health, t);
        RouteDecision d = Router.of(t).route(region, h);
        return switch (d.outcome()) {
            case HOME, FAILOVER -> {
                main.out().println(d.target().id());
                yield 0;
            }
            case UNKNOWN_REGION -> {
                main.err().println("unitas route: " + d.message() + " (expected one of: "
                        + String.join(", ", t.regions().stream().map(Region::id).toList()) + ")");
                yield EXIT_UNKNOWN_REGION;
            }
            case NO_HEALTHY_REGION -> {
                main.err().println("unitas route: " + d.message());
                yield EXIT_NO_HEALTHY_REGION;
            }
        };
    }
}
