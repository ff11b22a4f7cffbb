package io.unitas.playground.cli;

import io.unitas.cli.Main;
import io.unitas.playground.SagaCrashDrill;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code unitas drill saga-crash [--naive]}: cross-unit transfers while the saga coordinator dies mid-saga and eu's
 * database is killed and restarted; prints the table and exits 0 only when the credit was conserved and every transfer
 * ended. Without {@code --naive} both modes run, side by side.
 */
final class SagaCrash {

    /** The scenario's name on the command line. */
    static final String ID = "saga-crash";
    private static final int TRANSFERS = 200;

    private SagaCrash() {}

    static int run(Main main, boolean naiveOnly) {
        List<SagaCrashDrill.Result> results = new ArrayList<>();
        if (!naiveOnly) {
            results.add(SagaCrashDrill.run(false, TRANSFERS, 1, line -> main.err().println(line)));
        }
        results.add(SagaCrashDrill.run(true, TRANSFERS, 1, line -> main.err().println(line)));
        main.out().print(SagaCrashDrill.table(results));
        main.out().flush();
        return results.get(0).holds() ? 0 : DrillCommand.EXIT_BROKEN;
    }
}
