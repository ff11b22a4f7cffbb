package io.unitas.cli;

import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;

import io.unitas.config.internal.ConfigDocument;
import io.unitas.config.ConfigException;
import io.unitas.config.ConsistencyFile;
import io.unitas.config.MeasuredLagFile;
import io.unitas.config.TopologyFile;
import io.unitas.config.UnitRulesFile;
import io.unitas.control.client.ControlClient;
import io.unitas.control.client.ControlException;
import io.unitas.control.client.wire.StateView;
import io.unitas.core.Region;
import io.unitas.core.Topology;
import io.unitas.core.consistency.ConsistencyCheck;
import io.unitas.core.consistency.ConsistencyContract;
import io.unitas.core.consistency.ContractProblem;
import io.unitas.core.consistency.Location;
import io.unitas.core.consistency.MeasuredLag;
import io.unitas.core.consistency.Violation;
import io.unitas.core.rules.Unit;
import io.unitas.core.rules.UnitRules;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code unitas check}: checks a project's declarations against its topology, rules and measurements, for CI.
 * {@code unitas check consistency} applies the consistency contract's rules ({@link ConsistencyCheck}).
 */
@Command(name = "check",
         description = "Check a project's declarations, for CI: exit 0 clean, 1 with violations, 2 bad input.",
         mixinStandardHelpOptions = true,
         subcommands = {CheckCommand.Consistency.class})
final class CheckCommand implements Runnable {

    /** Violations were found. */
    static final int EXIT_VIOLATIONS = 1;
    /** The control plane could not be reached, or refused the request. */
    static final int EXIT_UNREACHABLE = 5;

    @ParentCommand
    Main main;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(main.out());
    }

    /**
     * {@code unitas check consistency --declarations F... --topology T --rules R [--lag F | --control URL]}: every
     * violation on its own line ({@code file:line: path: message [rule]}), then a summary.
     */
    @Command(name = "consistency", mixinStandardHelpOptions = true,
             description = "Check each service's and entity's declared consistency, money handling, merge policy and "
                           + "residency against seed 003's decision tree, the topology and the measured lag.",
             exitCodeListHeading = "%nExit codes:%n",
             exitCodeList = {"0:no violation", "1:violations, one per line", "2:bad input, every problem printed",
                             "5:the control plane could not be reached or refused (--control)"})
    static final class Consistency implements Callable<Integer> {
        @ParentCommand
        CheckCommand parent;

        @Option(names = "--declarations", required = true, paramLabel = "FILE",
                description = "a consistency file or an OpenAPI document with x-consistency-level (repeatable)")
        List<Path> declarations = new ArrayList<>();

        @Option(names = "--topology", required = true, paramLabel = "FILE", description = "topology, YAML or JSON")
        Path topology;

        @Option(names = "--rules", required = true, paramLabel = "FILE", description = "unit rules, YAML or JSON")
        Path rules;

        @ArgGroup(exclusive = true)
        LagSource lag;

        /** Where the measured lag comes from: a file, or the control plane. */
        static final class LagSource {
            @Option(names = "--lag", paramLabel = "FILE",
                    description = "measured lag: the control plane's state or its health part, as unitas ctl get "
                                  + "prints it")
            Path file;

            @Option(names = "--control", paramLabel = "URL",
                    description = "read the measured lag from this control plane's state")
            URI control;
        }

        @Option(names = "--token", defaultValue = "${env:UNITAS_TOKEN}",
                description = "bearer token for --control (default: $UNITAS_TOKEN)")
        String token;

        @Override
        public Integer call() {
            PrintStream out = parent.main.out();
            PrintStream err = parent.main.err();
            List<String> problems = new ArrayList<>();
            List<ConsistencyContract> parts = new ArrayList<>();
            for (Path file : declarations) {
                try {
                    parts.add(ConsistencyFile.read(file));
                } catch (ConfigException e) {
                    problems.addAll(e.problems());
                }
            }
            Topology topo = null;
            ConfigDocument topologyDoc = null;
            try {
                topologyDoc = ConfigDocument.read(topology);
                topo = TopologyFile.parse(topologyDoc);
            } catch (ConfigException e) {
                problems.addAll(e.problems());
            }
            UnitRules unitRules = null;
            if (topo != null) {
                try {
                    unitRules = UnitRulesFile.read(rules, topo);
                } catch (ConfigException e) {
                    problems.addAll(e.problems());
                }
            }
            Optional<MeasuredLag> measured = Optional.empty();
            if (lag != null && lag.file != null) {
                try {
                    measured = Optional.of(MeasuredLagFile.read(lag.file));
                } catch (ConfigException e) {
                    problems.addAll(e.problems());
                }
            }
            if (!problems.isEmpty()) {
                problems.forEach(err::println);
                return Main.EXIT_USAGE;
            }
            ConsistencyContract contract = ConsistencyContract.merge(parts);
            Map<String, Region> homes = new LinkedHashMap<>();
            for (Unit u : unitRules.units()) {
                homes.put(u.id(), u.home());
            }
            List<ContractProblem> contractProblems = contract.problems(topo, homes.keySet());
            if (!contractProblems.isEmpty()) {
                contractProblems.forEach(p -> err.println(p.toString()));
                return Main.EXIT_USAGE;
            }
            if (lag != null && lag.control != null) {
                StateView state;
                try {
                    state = ControlClient.of(lag.control, token).state();
                } catch (UncheckedIOException e) {
                    err.println("unitas check consistency: " + lag.control + ": " + e.getMessage());
                    return EXIT_UNREACHABLE;
                } catch (ControlException e) {
                    err.println("unitas check consistency: " + lag.control + "/api/v1/state: " + e.status() + " "
                                + e.problem().detail());
                    return EXIT_UNREACHABLE;
                }
                try {
                    measured = Optional.of(MeasuredLagFile.parse(ConfigDocument.parse(
                            lag.control + "/api/v1/state.json", state.json())));
                } catch (ConfigException e) {
                    e.problems().forEach(err::println);
                    return Main.EXIT_USAGE;
                }
            }
            ConfigDocument doc = topologyDoc;
            List<Violation> found = ConsistencyCheck.check(contract, ConsistencyCheck.Environment.of(
                    topo, path -> new Location(doc.name(), doc.lineOf(path), path), homes, measured));
            found.forEach(v -> out.println(v.toString()));
            out.println(summary(contract, found, measured));
            return found.isEmpty() ? 0 : EXIT_VIOLATIONS;
        }

        private static String count(int n, String what) {
            return n + " " + what + (n == 1 ? "" : "s");
        }

        private static String summary(ConsistencyContract contract, List<Violation> found,
                                      Optional<MeasuredLag> measured) {
            Set<String> rules = new LinkedHashSet<>();
            found.forEach(v -> rules.add(v.rule().id()));
            String checked = count(contract.declarations().size(), "declaration") + ", "
                             + count(contract.groups().size(), "residency group") + ", "
                             + count(contract.unitResidencies().size(), "unit") + " with residency";
            String lagNote = measured.isPresent()
                    ? measured.get().largest().map(s -> "; largest measured lag " + s.lagMs() + " ms (" + s.what()
                                                        + ")").orElse("; no lag measured yet")
                    : "; staleness budgets not checked (no --lag or --control)";
            return (found.isEmpty() ? "ok: no violations in " : count(found.size(), "violation") + " of "
                    + String.join(", ", rules) + " in ") + checked + lagNote;
        }
    }
}
