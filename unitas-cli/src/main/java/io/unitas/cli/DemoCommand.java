package io.unitas.cli;

import io.unitas.playground.DrillResult;
import io.unitas.playground.DrillTable;
import io.unitas.playground.Scenario;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.ParentCommand;

/**
 * {@code unitas demo}: every scenario in both modes, then the side-by-side table and the report. Exit codes: 0 when
 * every unitas drill held its invariants, 1 otherwise, 2 for bad options.
 */
@Command(name = "demo",
         mixinStandardHelpOptions = true,
         description = "Run every drill with unitas and with the seed's setup, and compare (writes "
                       + "unitas-demo.html unless --report says otherwise).")
final class DemoCommand implements Callable<Integer> {

    @ParentCommand
    Main main;

    @Mixin
    PlaygroundOptions playground;

    @Mixin
    DrillOptions drill;

    @Override
    public Integer call() throws Exception {
        UpCommand.quietLibraries();
        try {
            drill.validate(playground);
        } catch (IllegalArgumentException e) {
            main.err().println("unitas demo: " + e.getMessage());
            return Main.EXIT_USAGE;
        }
        if (drill.report == null) {
            drill.report = Path.of("unitas-demo.html");
        }
        List<DrillResult> results = new ArrayList<>();
        for (Scenario s : Scenario.values()) {
            for (boolean naive : new boolean[] {false, true}) {
                results.add(drill.run(playground, s, naive, main.err()));
                main.err().print(DrillTable.of(List.of(results.get(results.size() - 1))));
            }
        }
        main.out().println();
        main.out().print(DrillTable.of(results));
        main.out().flush();
        drill.writeReport(results, main.err());
        boolean unitasHolds = results.stream().filter(r -> !r.naive()).allMatch(DrillResult::holds);
        return unitasHolds ? 0 : DrillCommand.EXIT_BROKEN;
    }
}
