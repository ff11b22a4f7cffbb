package io.unitas.playground.cli;

import io.unitas.cli.Main;
import io.unitas.cli.PlaygroundCommands;
import io.unitas.playground.DrillResult;
import io.unitas.playground.DrillTable;
import io.unitas.playground.PartitionDrill;
import io.unitas.playground.ReplicationKind;
import io.unitas.playground.Scenario;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code unitas drill SCENARIO}: starts a playground, runs the workload through the fault and its recovery, prints
 * the invariant table. Exit codes: 0 when every invariant held, 1 when one broke, 2 for bad options.
 */
@Command(name = PlaygroundCommands.DRILL,
         mixinStandardHelpOptions = true,
         description = PlaygroundCommands.DRILL_DESCRIPTION)
final class DrillCommand implements Callable<Integer> {

    /** An invariant broke. */
    static final int EXIT_BROKEN = 1;

    @ParentCommand
    Main main;

    @Parameters(index = "0", paramLabel = "SCENARIO", description = "db-readonly, replication-backlog, region-down, "
                                                                    + "control-plane-down, dns-down, saga-crash, "
                                                                    + "partition or slow-region (--processes only)")
    String scenario;

    @Option(names = "--naive", description = "Run with the seed's setup: process-only checks, a DNS switch after "
                                             + "a TTL, local-only reads, region-local idempotency.")
    boolean naive;

    @Option(names = "--with-example",
            description = "Also run the example service pair in every region and send it orders that enter at "
                          + "another region's gateway; its calls served outside their unit's region are counted "
                          + "(the table's wrong-region calls, an invariant). Unitas drills only.")
    boolean withExample;

    @Option(names = "--processes",
            description = "Run it on the deployment of separate processes (as unitas up --processes starts it, one "
                          + "wallet instance per region): region-down is kill -9 of every process of the region, "
                          + "db-readonly its PostgreSQL turned read-only, control-plane-down kill -9 of the control "
                          + "plane, replication-backlog SIGSTOP of the Kafka broker the regions replicate through, "
                          + "saga-crash kill -9 of its coordinator's own process mid-saga and of eu's postmaster "
                          + "(files and logs in deploy/saga/), dns-down kill -9 of every region's DNS server, "
                          + "partition the first and second regions' links cut (they hang), slow-region 300 ms each "
                          + "way on every link of the first region. With --naive, then the same on the naive setup's "
                          + "wallets, both side by side.")
    boolean processes;

    @Mixin
    PlaygroundOptions playground;

    @Mixin
    DrillOptions drill;

    @Override
    public Integer call() throws Exception {
        UpCommand.quietLibraries();
        if (SagaCrash.ID.equals(scenario)) {
            return SagaCrash.run(main, naive, processes);
        }
        if (PartitionDrill.ID.equals(scenario) && !processes) {
            ReplicationKind replication;
            try {
                replication = ReplicationKind.of(playground.replication == null ? "embedded" : playground.replication);
            } catch (IllegalArgumentException e) {
                main.err().println("unitas drill: --replication: '" + playground.replication
                                   + "' (expected: embedded or kafka)");
                return Main.EXIT_USAGE;
            }
            try {
                return Partition.run(main, naive, replication);
            } catch (IllegalStateException e) {
                main.err().println("unitas drill: partition: " + e.getMessage());
                return DrillCommand.EXIT_BROKEN;
            }
        }
        Scenario s;
        try {
            List<String> ids = Stream.concat(Arrays.stream(Scenario.values()).map(Scenario::id),
                                             Stream.of(SagaCrash.ID, PartitionDrill.ID)).distinct().toList();
            if (!ids.contains(scenario)) {
                throw new IllegalArgumentException("scenario: '" + scenario + "' (expected: one of "
                                                   + String.join(", ", ids) + ")");
            }
            s = Scenario.of(scenario);
            if (s.processesOnly() && !processes) {
                throw new IllegalArgumentException(s.id() + ": runs on processes only (expected: --processes)");
            }
            drill.validate(playground, 1);
            if (withExample && naive) {
                throw new IllegalArgumentException("--with-example: runs with unitas drills only (expected: "
                                                   + "without --naive)");
            }
            drill.example = withExample;
        } catch (IllegalArgumentException e) {
            main.err().println("unitas drill: " + e.getMessage());
            return Main.EXIT_USAGE;
        }
        if (processes) {
            return new ProcessesDrill(main, playground, drill, s, naive).call();
        }
        Path logFile = drill.logFile("unitas-drill.log");
        main.err().println("unitas drill: " + s.id() + (naive ? " (naive)" : "") + "; the pieces' logs go to "
                           + logFile);
        List<DrillResult> results;
        String logSummary;
        try (DrillStatus status = DrillStatus.open(main.err(), s.id(), List.of(naive ? "naive" : "unitas"),
                                                   drill.length().toMillis());
             DrillLog log = DrillLog.open(logFile)) {
            results = drill.run(playground, List.of(s), List.of(naive), status);
            logSummary = log.summary();
        }
        main.out().print(DrillTable.of(results));
        main.out().flush();
        drill.writeReport(results, main.err());
        main.err().println(logSummary);
        return results.get(0).holds() ? 0 : EXIT_BROKEN;
    }
}
