package io.unitas.playground.cli;

import io.unitas.cli.Main;
import io.unitas.playground.SagaCrashDrill;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * {@code unitas drill saga-crash [--naive] [--processes]}: cross-unit transfers while the saga coordinator dies
 * mid-saga and eu's database is killed and restarted; prints the table and exits 0 only when the credit was conserved
 * and every transfer ended. Without {@code --naive} both modes run, side by side. With {@code --processes} each
 * coordinator is a JVM of its own, {@code kill -9}ed, and so is eu's postmaster; each mode's coordinators have their
 * properties file and log in {@code deploy/saga/unitas/} or {@code deploy/saga/naive/}.
 */
final class SagaCrash {

    /** The scenario's name on the command line. */
    static final String ID = "saga-crash";
    private static final int TRANSFERS = 200;
    /** Where the coordinators' files and logs go with {@code --processes}. */
    private static final Path DIR = Path.of("deploy", "saga");

    private SagaCrash() {}

    static int run(Main main, boolean naiveOnly, boolean processes) {
        List<SagaCrashDrill.Result> results = new ArrayList<>();
        try {
            if (!naiveOnly) {
                results.add(one(main, false, processes));
            }
            results.add(one(main, true, processes));
        } catch (RuntimeException e) {
            main.err().println("unitas drill: " + ID + ": " + UpCommand.rootMessage(e));
            return DrillCommand.EXIT_BROKEN;
        }
        main.out().print(SagaCrashDrill.table(results));
        main.out().flush();
        return results.get(0).holds() ? 0 : DrillCommand.EXIT_BROKEN;
    }

    private static SagaCrashDrill.Result one(Main main, boolean naive, boolean processes) {
        Consumer<String> progress = line -> main.err().println(line);
        if (!processes) {
            return SagaCrashDrill.run(naive, TRANSFERS, 1, progress);
        }
        return SagaCrashDrill.runOnProcesses(naive, TRANSFERS, 1, DIR.resolve(naive ? "naive" : "unitas"),
                                             System.getProperty("java.class.path"), progress);
    }
}
