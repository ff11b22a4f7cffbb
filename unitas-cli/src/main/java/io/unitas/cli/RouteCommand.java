package io.unitas.cli;

import java.time.Duration;
import java.util.concurrent.Callable;

import io.unitas.core.Region;
import io.unitas.core.RouteDecision;
import io.unitas.core.ReadOnlyPolicy;
import io.unitas.core.Topology;
import io.unitas.core.fence.WriteFences;
import io.unitas.core.routing.RoutingDecision;
import io.unitas.core.routing.RoutingSnapshot;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** {@code unitas route}: the one routing decision's region-level part ({@link RoutingDecision#region}), for scripts. */
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

    @Mixin
    TopologyAndHealth inputs;

    @Option(names = "--region", required = true, paramLabel = "ID", description = "the user's home region")
    String region;

    @Override
    public Integer call() {
        Topology t = inputs.topology();
        // The routing decision's region-level part, as DNS takes it: no user key, so no band to spill over by; the
        // steady state (every healthy region admitted), as offline planning sees it.
        RoutingSnapshot s = RoutingSnapshot.of(t, null, inputs.health(t), WriteFences.none(), () -> 0L,
                                               Long.MAX_VALUE, Duration.ZERO);
        RouteDecision d = RoutingDecision.region(s, region, null, false, ReadOnlyPolicy.FENCE, Long.MAX_VALUE);
        if (d.hasTarget()) {
            main.out().println(d.target().id());
            return 0;
        }
        if (d.outcome() == RouteDecision.Outcome.UNKNOWN_REGION) {
            main.err().println("unitas route: " + d.message() + " (expected one of: "
                    + String.join(", ", t.regions().stream().map(Region::id).toList()) + ")");
            return EXIT_UNKNOWN_REGION;
        }
        main.err().println("unitas route: " + d.message());
        return EXIT_NO_HEALTHY_REGION;
    }
}
