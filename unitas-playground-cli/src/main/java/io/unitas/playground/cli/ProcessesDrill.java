package io.unitas.playground.cli;

import io.unitas.cli.Main;
import io.unitas.playground.ProcessDeployment;
import io.unitas.playground.ProcessDrill;
import io.unitas.playground.ProcessDrillResult;
import io.unitas.playground.Scenario;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code unitas drill SCENARIO --processes}: starts the deployment of separate processes (one wallet instance per
 * region, configs and logs in {@code deploy/}), runs the drill against it, prints what it counted and stops every
 * process. Exit codes: 0 when the invariants hold, 1 when one broke, 2 for bad options.
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
        ProcessDeployment.Builder deployment;
        try {
            if (naive) {
                throw new IllegalArgumentException("--naive: not run on processes yet (expected: without --naive, or"
                                                   + " without --processes)");
            }
            ProcessDrill.Builder b = ProcessDrill.builder().scenario(scenario).duration(drill.length())
                                                 .users(drill.users)
                                                 .progress(line -> main.err().println("unitas drill: " + line));
            if (drill.visitEvery() != null) {
                b.visitEvery(drill.visitEvery());
            }
            run = b.build();
            // no replication yet: the drills on processes count what the regions serve without it
            deployment = ProcessesUp.builder(main, options, Path.of("deploy")).instances(1)
                                    .replication(ProcessDeployment.Replication.NONE);
        } catch (IllegalArgumentException e) {
            main.err().println("unitas drill: " + e.getMessage());
            return Main.EXIT_USAGE;
        }
        ProcessDrillResult result;
        try (ProcessDeployment d = deployment.start()) {
            main.err().println("unitas drill: " + d.pids().size() + " processes, " + d.residentBytes() / (1024 * 1024)
                               + " MB resident, started in " + d.startTime().toSeconds() + " s; " + scenario.id()
                               + " for " + drill.length().toSeconds() + " s ...");
            result = run.run(d);
        } catch (RuntimeException e) {
            main.err().println("unitas drill: " + UpCommand.rootMessage(e));
            return 1;
        }
        main.out().print(result.table());
        main.out().flush();
        return result.invariantsHold() ? 0 : DrillCommand.EXIT_BROKEN;
    }
}
