package io.unitas.playground.cli;

import io.unitas.cli.Main;
import io.unitas.playground.PartitionDrill;
import io.unitas.playground.ReplicationKind;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code unitas drill partition [--naive] [--replication kafka]}: cn and eu cut from each other while both take writes
 * for cn's failed-over unit, then healed; prints the table and exits 0 only when nothing acknowledged was lost, every
 * conflict was listed and the regions converged within the window. Without {@code --naive} both modes run, side by
 * side.
 */
final class Partition {

    private Partition() {}

    static int run(Main main, boolean naiveOnly, ReplicationKind replication) {
        List<PartitionDrill.Result> results = new ArrayList<>();
        PartitionDrill.Settings settings = PartitionDrill.Settings.defaults();
        if (!naiveOnly) {
            results.add(PartitionDrill.run(false, replication, settings, line -> main.err().println(line)));
        }
        results.add(PartitionDrill.run(true, replication, settings, line -> main.err().println(line)));
        main.out().print(PartitionDrill.table(results));
        main.out().flush();
        return results.get(0).holds() ? 0 : DrillCommand.EXIT_BROKEN;
    }
}
