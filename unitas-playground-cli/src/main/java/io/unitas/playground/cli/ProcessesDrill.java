package io.unitas.playground.cli;

import io.unitas.cli.Main;
import io.unitas.playground.ProcessDeployment;
import io.unitas.playground.ProcessDrill;
import io.unitas.playground.ProcessDrillResult;
import io.unitas.playground.Scenario;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code unitas drill SCENARIO --processes}: starts the deployment of separate processes (one wallet instance per
 * region, configs and logs in {@code deploy/}), runs the drill against it, prints what it counted and stops every
 * process. With {@code --naive} it then does the same with the naive setup on the same wallet processes (configs and
 * logs in {@code deploy-naive/}), offered the same load, and prints both side by side. Exit codes: 0 when unitas's
 * invariants hold (naive is expected to break some), 1 when one broke, 2 for bad options.
 */
final class ProcessesDrill implements Callable<Integer> {

    private final Main main;
    private final PlaygroundOptions options;
    private final DrillOptions drill;
    private final Scenario scenario;
    private final boolean naive;

    ProcessesDrill(Main main, PlaygroundOptions options, DrillOptions drill, Scenario scenario, boolean naive) {
        this.main = main;
        this.options = options;
        this.drill = drill;
        this.scenario = scenario;
        this.naive = naive;
    }

    @Override
    public Integer call() {
        ProcessDrill run;
        List<ProcessDeployment.Builder> sides = new ArrayList<>();
        try {
            ProcessDrill.Builder b = ProcessDrill.builder().scenario(scenario).duration(drill.length())
                                                 .users(drill.users).seed(drill.seed)
                                                 .progress(line -> main.err().println("unitas drill: " + line));
            if (drill.visitEvery() != null) {
                if (drill.visitEvery().compareTo(Duration.ofMillis(10)) < 0) {
                    throw new IllegalArgumentException("--visit-every: " + drill.visitEvery
                                                       + " (expected: 10ms to 10s on processes, an open loop)");
                }
                b.visitEvery(drill.visitEvery());
            }
            run = b.build();
            // replication-backlog pauses the Kafka broker, partition and slow-region act on the links to it; region-down and db-readonly move the faulted region's
            // unit with its data (the drill's failover policy); control-plane-down counts what the regions serve
            // without replication
            sides.add(ProcessesUp.builder(main, options, Path.of("deploy")).instances(1).example(drill.example)
                                 .replication(scenario == Scenario.CONTROL_PLANE_DOWN
                                              ? ProcessDeployment.Replication.NONE
                                              : ProcessDeployment.Replication.KAFKA));
            if (naive) {
                sides.add(ProcessesUp.builder(main, options, Path.of("deploy-naive")).instances(1)
                                     .replication(ProcessDeployment.Replication.NONE).naive(true).validate());
            }
        } catch (IllegalArgumentException e) {
            main.err().println("unitas drill: " + e.getMessage());
            return Main.EXIT_USAGE;
        }
        List<ProcessDrillResult> results = new ArrayList<>();
        for (ProcessDeployment.Builder side : sides) {
            try (ProcessDeployment d = side.start()) {
                main.err().println("unitas drill: " + (d.naive() ? "naive: " : "unitas: ") + d.pids().size()
                                   + " processes, " + d.residentBytes() / (1024 * 1024) + " MB resident, started in "
                                   + d.startTime().toSeconds() + " s; " + scenario.id() + " for "
                                   + drill.length().toSeconds() + " s ...");
                results.add(run.run(d));
            } catch (RuntimeException e) {
                main.err().println("unitas drill: " + UpCommand.rootMessage(e));
                return 1;
            }
        }
        results.forEach(r -> main.out().print(r.table()));
        if (results.size() > 1) {
            main.out().println();
            main.out().print(ProcessDrillResult.sideBySide(results));
        }
        main.out().flush();
        return results.get(0).invariantsHold() ? 0 : DrillCommand.EXIT_BROKEN;
    }
}
