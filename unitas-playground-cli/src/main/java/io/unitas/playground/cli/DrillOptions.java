package io.unitas.playground.cli;

import io.unitas.config.internal.DurationFormat;
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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import picocli.CommandLine.Option;

/**
 * The options {@code drill} and {@code demo} share, and running drills: one playground per mode, the modes side
 * by side, each mode's scenarios one after another on its playground.
 */
final class DrillOptions {

    /** How far above {@code --ports-from} the second playground (the naive one, beside unitas) listens. */
    static final int SECOND_PLAYGROUND_OFFSET = 100;

    @Option(names = "--duration",
            description = "Each drill's length: fault at 30%%, recovery at 70%% (default: 40s; demo: 30s).")
    String duration;

    /** Whether unitas playgrounds also run the example service pair ({@code drill --with-example}). */
    boolean example;

    /** The length without {@code --duration}: the command sets it (demo's is shorter, as it runs two at once). */
    Duration defaultLength = Duration.ofSeconds(40);

    @Option(names = "--quick", description = "Shortened drills for CI: 20s each.")
    boolean quick;

    @Option(names = "--users", defaultValue = "8", description = "Concurrent virtual users (default: ${DEFAULT-VALUE}).")
    int users;

    @Option(names = "--visit-every", paramLabel = "DURATION",
            description = "How often each virtual user starts a visit (default: 250ms; 0ms for as fast as answers "
                          + "come). The same offered load in both modes, so the counts compare availability.")
    String visitEvery;

    @Option(names = "--seed", defaultValue = "1",
            description = "Seed of the virtual users' draws (default: ${DEFAULT-VALUE}): both modes get the same "
                          + "visits, so their counts differ by how each setup answers.")
    long seed;

    @Option(names = "--report", description = "Write the HTML report (timeline charts and the invariant table) here.")
    Path report;

    @Option(names = "--log", paramLabel = "FILE",
            description = "Where the pieces' logs go while the drills run (default: unitas-drill.log, for demo "
                          + "unitas-demo.log).")
    Path log;

    Duration length() {
        try {
            return quick ? Duration.ofSeconds(20) : duration == null ? defaultLength : DurationFormat.parse(duration);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--duration: " + e.getMessage(), e);
        }
    }

    /** {@code --visit-every}, or null for the drill's own default. */
    Duration visitEvery() {
        if (visitEvery == null) {
            return null;
        }
        Duration every;
        try {
            every = DurationFormat.parse(visitEvery);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--visit-every: " + e.getMessage(), e);
        }
        if (every.compareTo(Duration.ofSeconds(10)) > 0) {
            throw new IllegalArgumentException("--visit-every: " + visitEvery + " (expected: at most 10s)");
        }
        return every;
    }

    /** Checks every option (and the playgrounds') before anything starts; {@code playgrounds} is 1 or 2. */
    void validate(PlaygroundOptions playground, int playgrounds) {
        Duration length = length();
        if (length.compareTo(Duration.ofSeconds(5)) < 0) {
            throw new IllegalArgumentException("--duration: " + duration + " (expected: at least 5s)");
        }
        visitEvery();
        if (users < 1 || users > 1000) {
            throw new IllegalArgumentException("--users: " + users + " (expected: 1..1000)");
        }
        playground.builder().validate();
        if (playgrounds > 1) {
            try {
                playground.builder().portsFrom(playground.portsFrom + SECOND_PLAYGROUND_OFFSET).validate();
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--ports-from: " + playground.portsFrom + " (expected: room for a "
                                                   + "second playground " + SECOND_PLAYGROUND_OFFSET + " ports above: "
                                                   + e.getMessage() + ")", e);
            }
        }
    }

    /**
     * Runs every scenario in each mode of {@code naive} (false: unitas, true: the seed's setup): one playground per
     * mode, started side by side on {@code --ports-from} and {@link #SECOND_PLAYGROUND_OFFSET} above it, each
     * running its scenarios one after another, waiting until it routes every user home before each. Results in
     * scenario order, the modes of a scenario in the given order.
     */
    List<DrillResult> run(PlaygroundOptions playground, List<Scenario> scenarios, List<Boolean> naive,
                          DrillStatus status) {
        List<CompletableFuture<List<DrillResult>>> lanes = new ArrayList<>();
        for (int i = 0; i < naive.size(); i++) {
            boolean mode = naive.get(i);
            int portsFrom = playground.portsFrom + i * SECOND_PLAYGROUND_OFFSET;
            DrillStatus.Lane lane = status.lane(mode ? "naive" : "unitas");
            lanes.add(CompletableFuture.supplyAsync(() -> runLane(playground, portsFrom, scenarios, mode, lane)));
        }
        List<List<DrillResult>> byMode = new ArrayList<>();
        RuntimeException failure = null;
        for (CompletableFuture<List<DrillResult>> lane : lanes) {
            try {
                byMode.add(lane.join());
            } catch (CompletionException e) {
                failure = failure != null ? failure
                        : e.getCause() instanceof RuntimeException re ? re : new IllegalStateException(e.getCause());
            }
        }
        if (failure != null) {
            throw failure;
        }
        List<DrillResult> results = new ArrayList<>();
        for (int s = 0; s < scenarios.size(); s++) {
            for (List<DrillResult> mode : byMode) {
                results.add(mode.get(s));
            }
        }
        return results;
    }

    private List<DrillResult> runLane(PlaygroundOptions options, int portsFrom, List<Scenario> scenarios,
                                      boolean naive, DrillStatus.Lane lane) {
        Duration length = length();
        lane.step("starting the playground on ports " + portsFrom + "..");
        try (Playground p = options.builder().portsFrom(portsFrom).mode(naive ? ShopMode.NAIVE : ShopMode.UNITAS)
                                   .example(example && !naive).start()) {
            List<DrillResult> results = new ArrayList<>();
            for (Scenario s : scenarios) {
                lane.step("waiting until every gateway routes every user home");
                p.awaitReady(Duration.ofSeconds(120));
                Drill.Builder drill = Drill.builder().scenario(s).naive(naive).duration(length).users(users)
                                           .seed(seed)
                                           .progress(lane::line)
                                           .phases((phase, at) -> lane.phase(s, length, phase, at));
                if (visitEvery() != null) {
                    drill.visitEvery(visitEvery());
                }
                results.add(drill.build().run(p));
            }
            lane.step("stopping the playground");
            return results;
        }
    }

    /** The log file: {@code --log}, else {@code fallback}. */
    Path logFile(String fallback) {
        return log != null ? log : Path.of(fallback);
    }

    /** Writes the report when {@code --report} was given. */
    void writeReport(List<DrillResult> results, PrintStream err) throws IOException {
        if (report != null) {
            Files.writeString(report, DrillReport.html(results));
            err.println("report: " + report.toAbsolutePath());
        }
    }
}
