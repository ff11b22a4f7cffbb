package io.unitas.cli;

import io.unitas.config.DurationFormat;
import io.unitas.playground.Drill;
import io.unitas.playground.DrillReport;
import io.unitas.playground.DrillResult;
import io.unitas.playground.Playground;
import io.unitas.playground.Scenario;
import io.unitas.playground.ShopMode;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine.Option;

/** The options {@code drill} and {@code demo} share, and running one drill on a fresh playground. */
final class DrillOptions {

    @Option(names = "--duration", defaultValue = "40s",
            description = "Each drill's length: fault at 30%%, recovery at 70%% (default: ${DEFAULT-VALUE}).")
    String duration;

    @Option(names = "--quick", description = "Shortened drills for CI: 20s each.")
    boolean quick;

    @Option(names = "--users", defaultValue = "8", description = "Concurrent virtual users (default: ${DEFAULT-VALUE}).")
    int users;

    @Option(names = "--report", description = "Write the HTML report (timeline charts and the invariant table) here.")
    Path report;

    Duration length() {
        try {
            return quick ? Duration.ofSeconds(20) : DurationFormat.parse(duration);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--duration: " + e.getMessage(), e);
        }
    }

    /** Checks every option (and the playground's) before anything starts. */
    void validate(PlaygroundOptions playground) {
        Duration length = length();
        if (length.compareTo(Duration.ofSeconds(5)) < 0) {
            throw new IllegalArgumentException("--duration: " + duration + " (expected: at least 5s)");
        }
        if (users < 1 || users > 1000) {
            throw new IllegalArgumentException("--users: " + users + " (expected: 1..1000)");
        }
        playground.builder().validate();
    }

    /** Starts a playground in the drill's mode, runs the drill, stops the playground. */
    DrillResult run(PlaygroundOptions playground, Scenario scenario, boolean naive, PrintStream err) {
        Playground.Builder b = playground.builder().mode(naive ? ShopMode.NAIVE : ShopMode.UNITAS);
        err.println("unitas drill: starting the playground for " + scenario.id() + (naive ? " (naive)" : "")
                    + " ...");
        try (Playground p = b.start()) {
            p.awaitReady(Duration.ofSeconds(120));
            return Drill.builder().scenario(scenario).naive(naive).duration(length()).users(users)
                        .progress(err::println).build().run(p);
        }
    }

    /** Writes the report when {@code --report} was given. */
    void writeReport(List<DrillResult> results, PrintStream err) throws IOException {
        if (report != null) {
            Files.writeString(report, DrillReport.html(results));
            err.println("report: " + report.toAbsolutePath());
        }
    }
}
