package io.unitas.cli;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;

import io.unitas.config.TopologyFile;
import io.unitas.config.UnitRulesFile;
import io.unitas.core.rules.RequestView;
import io.unitas.core.rules.UnitLookup;
import io.unitas.core.rules.UnitRules;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code unitas rules check} and {@code unitas rules lookup}: validate a rules file against a topology, and show which
 * unit and home region a request gets. Exit codes: 0 success, 2 invalid input (every problem of either file printed,
 * one per line), 3 the request has no unit (no key under {@code missing: reject}, a bad key, a key in no range).
 */
@Command(name = "rules",
         description = "Check unit rules, and look up the unit and home region of a request.",
         mixinStandardHelpOptions = true,
         subcommands = {RulesCommand.Check.class, RulesCommand.Lookup.class})
final class RulesCommand implements Runnable {

    /** The request has no unit. */
    static final int EXIT_NO_UNIT = 3;

    @ParentCommand
    Main main;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(main.out());
    }

    /** What both subcommands share: the two files, read and validated before {@link #run} is called. */
    abstract static class WithRules implements Callable<Integer> {
        @ParentCommand
        RulesCommand parent;

        @Option(names = "--rules", required = true, paramLabel = "FILE", description = "unit rules, YAML or JSON")
        Path rules;

        @Option(names = "--topology", required = true, paramLabel = "FILE", description = "topology, YAML or JSON")
        Path topology;

        @Override
        public final Integer call() {
            UnitRules loaded = UnitRulesFile.read(rules, TopologyFile.read(topology));
            return run(loaded, parent.main.out(), parent.main.err());
        }

        /** Does the subcommand's work on valid rules and returns the exit code. */
        abstract int run(UnitRules rules, PrintStream out, PrintStream err);
    }

    /** {@code unitas rules check --rules R --topology T}. */
    @Command(name = "check", mixinStandardHelpOptions = true,
             description = "Validate a rules file as a whole against a topology; print every problem, one per line.",
             exitCodeListHeading = "%nExit codes:%n",
             exitCodeList = {"0:the rules are valid", "2:invalid rules or topology, every problem printed"})
    static final class Check extends WithRules {
        @Override
        int run(UnitRules rules, PrintStream out, PrintStream err) {
            out.println("ok: " + rules.units().size() + " units, " + rules.ranges().size() + " ranges");
            return 0;
        }
    }

    /** {@code unitas rules lookup --rules R --topology T [--header k=v]... [--cookie k=v]... [--query k=v]... [--host h] [--path p]}. */
    @Command(name = "lookup", mixinStandardHelpOptions = true,
             description = "Print the unit, its home region and the key's source for a request described by options.",
             exitCodeListHeading = "%nExit codes:%n",
             exitCodeList = {"0:printed", "2:invalid input", "3:the request has no unit"})
    static final class Lookup extends WithRules {
        @Option(names = "--header", paramLabel = "NAME=VALUE", description = "a request header (repeatable)")
        Map<String, String> headers = new LinkedHashMap<>();

        @Option(names = "--cookie", paramLabel = "NAME=VALUE", description = "a cookie (repeatable)")
        Map<String, String> cookies = new LinkedHashMap<>();

        @Option(names = "--query", paramLabel = "NAME=VALUE", description = "a query parameter (repeatable)")
        Map<String, String> query = new LinkedHashMap<>();

        @Option(names = "--host", paramLabel = "HOST", description = "the request's host, e.g. paris.shop.example")
        String host;

        @Option(names = "--path", paramLabel = "PATH", description = "the request's path, e.g. /wallets/4242")
        String path;

        @Override
        int run(UnitRules rules, PrintStream out, PrintStream err) {
            RequestView request = RequestView.of(headers, cookies, query, host, path);
            UnitLookup lookup = rules.lookup(request);
            if (!lookup.hasRegion()) {
                err.println(lookup.outcome().reason() + ": " + lookup.message());
                return EXIT_NO_UNIT;
            }
            if (lookup.outcome() == UnitLookup.Outcome.CENTER) {
                out.println("unit: none");
                out.println("region: " + lookup.region() + " (center)");
                out.println("source: none (missing: center)");
                return 0;
            }
            out.println("unit: " + lookup.unit().id());
            out.println("region: " + lookup.region());
            out.println("source: " + lookup.source());
            out.println("key: " + lookup.key() + (lookup.transformedKey() < 0 ? ""
                    : " (" + rules.transform() + ": " + lookup.transformedKey() + ")"));
            String gray = rules.grayVersion(lookup.unit(), request);
            if (gray != null) {
                out.println("gray: " + gray);
            }
            return 0;
        }
    }
}
