package io.unitas.playground.cli;

import io.unitas.cli.Main;
import io.unitas.cli.PlaygroundCommands;
import io.unitas.playground.DrillResult;
import io.unitas.playground.DrillTable;
import io.unitas.playground.ProcessDrill;
import io.unitas.playground.Scenario;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code unitas demo}: the seed's incident (cn's database turning read-only) with unitas and with the seed's setup,
 * side by side on two playgrounds, then the table and the report; {@code --all} runs every scenario. Exit codes: 0
 * when every unitas drill held its invariants, 1 otherwise, 2 for bad options.
 */
@Command(name = PlaygroundCommands.DEMO,
         mixinStandardHelpOptions = true,
         description = PlaygroundCommands.DEMO_DESCRIPTION)
final class DemoCommand implements Callable<Integer> {

    /**
     * Long enough for the seed's incident to show (a 12 s fault window, a few hundred requests per mode even on a
     * loaded machine), short enough for the whole command to stay under 90 s.
     */
    static final Duration DEFAULT_LENGTH = Duration.ofSeconds(30);

    @ParentCommand
    Main main;

    @Mixin
    PlaygroundOptions playground;

    @Mixin
    DrillOptions drill;

    @Option(names = "--all", description = "Every scenario, not only the seed's incident (each mode's drills one "
                                           + "after another on its playground).")
    boolean all;

    @Option(names = "--processes",
            description = "Run it on the deployment of separate processes instead (as unitas drill SCENARIO "
                          + "--processes --naive does: unitas, then the naive setup, each its own deployment, side by "
                          + "side); with --all, every scenario that runs on processes. Minutes, not seconds.")
    boolean processes;

    @Override
    public Integer call() throws Exception {
        long started = System.nanoTime();
        UpCommand.quietLibraries();
        drill.defaultLength = DEFAULT_LENGTH;
        try {
            drill.validate(playground, 2);
        } catch (IllegalArgumentException e) {
            main.err().println("unitas demo: " + e.getMessage());
            return Main.EXIT_USAGE;
        }
        if (processes) {
            return onProcesses(started);
        }
        if (drill.report == null) {
            drill.report = Path.of("unitas-demo.html");
        }
        List<Scenario> scenarios = all ? java.util.Arrays.stream(Scenario.values())
                                                         .filter(s -> !s.processesOnly()).toList()
                                           : List.of(Scenario.DB_READONLY);
        Path logFile = drill.logFile("unitas-demo.log");
        main.err().println("unitas demo: " + String.join(", ", scenarios.stream().map(Scenario::id).toList())
                           + ", unitas and naive side by side; the pieces' logs go to " + logFile);
        List<DrillResult> results;
        String logSummary;
        try (DrillStatus status = DrillStatus.open(main.err(), all ? "demo --all" : "demo", List.of("unitas", "naive"),
                                                   drill.length().toMillis() * scenarios.size());
             DrillLog log = DrillLog.open(logFile)) {
            results = drill.run(playground, scenarios, List.of(false, true), status);
            logSummary = log.summary();
        }
        main.out().println();
        main.out().print(DrillTable.of(results));
        main.out().flush();
        drill.writeReport(results, main.err());
        main.err().println(logSummary);
        main.err().printf("done in %d s%n", TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started));
        boolean unitasHolds = results.stream().filter(r -> !r.naive()).allMatch(DrillResult::holds);
        return unitasHolds ? 0 : DrillCommand.EXIT_BROKEN;
    }

    /** Each scenario as {@code drill SCENARIO --processes --naive} runs it, one after another. */
    private int onProcesses(long started) {
        List<Scenario> scenarios = all ? ProcessDrill.scenarios() : List.of(Scenario.DB_READONLY);
        main.err().println("unitas demo: " + String.join(", ", scenarios.stream().map(Scenario::id).toList())
                           + " on separate processes, unitas and naive side by side; configs and logs in deploy/ and"
                           + " deploy-naive/");
        int exit = 0;
        for (Scenario s : scenarios) {
            int one = new ProcessesDrill(main, playground, drill, s, true).call();
            if (one == Main.EXIT_USAGE) {
                return one;
            }
            exit = Math.max(exit, one);
        }
        main.err().printf("done in %d s%n", TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started));
        return exit;
    }
}
