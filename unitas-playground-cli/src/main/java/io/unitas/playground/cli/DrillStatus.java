package io.unitas.playground.cli;

import io.unitas.playground.DrillPhase;
import io.unitas.playground.Scenario;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;

/**
 * What a person sees while drills run, one lane per playground (e.g. {@code unitas} and {@code naive} side by
 * side). On a terminal: one live progress bar over the drills' seconds, its message the phase of every lane
 * ({@code unitas: fault · naive: fault}); the drills' own lines (fault injected, recovered…) are kept and printed
 * as a timeline when the bar is done. Elsewhere (a pipe, a CI log, a test): every line as it happens.
 */
final class DrillStatus implements AutoCloseable {

    private final PrintStream err;
    private final ProgressBar bar;
    private final LongSupplier ticker;
    private final Map<String, Lane> lanes = new LinkedHashMap<>();
    private final List<String> timeline = Collections.synchronizedList(new ArrayList<>());
    private final ScheduledExecutorService refresh;

    private DrillStatus(PrintStream err, ProgressBar bar, LongSupplier ticker, List<String> laneNames) {
        this.err = err;
        this.bar = bar;
        this.ticker = ticker;
        laneNames.forEach(n -> lanes.put(n, new Lane(n)));
        if (bar == null) {
            refresh = null;
        } else {
            refresh = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "unitas-drill-status");
                t.setDaemon(true);
                return t;
            });
            refresh.scheduleWithFixedDelay(this::render, 0, 250, TimeUnit.MILLISECONDS);
        }
    }

    /**
     * A status for lanes that each run {@code drillMillis} of drills in all: live on a terminal when {@code err} is
     * the process's standard error and that is a terminal, line by line otherwise.
     */
    static DrillStatus open(PrintStream err, String task, List<String> lanes, long drillMillis) {
        ProgressBar bar = null;
        if (err == System.err && stderrIsTerminal()) {
            bar = new ProgressBarBuilder().setTaskName(task).setInitialMax(drillMillis).setUnit("s", 1000)
                                          .setUpdateIntervalMillis(250).hideEta()
                                          .setConsumer(new ConsoleProgressBarConsumer(err)).build();
        }
        return new DrillStatus(err, bar, System::nanoTime, lanes);
    }

    /** The lane named {@code name}. */
    Lane lane(String name) {
        Lane l = lanes.get(name);
        if (l == null) {
            throw new IllegalArgumentException("lane: " + name + " (expected: one of " + lanes.keySet() + ")");
        }
        return l;
    }

    /** Whether the display is a live bar (the lines are then printed at the end). */
    boolean live() {
        return bar != null;
    }

    private void render() {
        long done = lanes.values().stream().mapToLong(Lane::progressMillis).min().orElse(0);
        bar.stepTo(Math.min(done, bar.getMax()));
        bar.setExtraMessage(lanes.values().stream().map(l -> l.name + ": " + l.label)
                                 .collect(Collectors.joining(" · ")));
    }

    private void line(String line) {
        if (bar == null) {
            err.println(line);
        } else {
            timeline.add(line);
        }
    }

    /** Ends the bar and prints the lines it held back. */
    @Override
    public void close() {
        if (bar != null) {
            refresh.shutdownNow();
            render();
            bar.close();
            synchronized (timeline) {
                timeline.forEach(err::println);
            }
        }
        err.flush();
    }

    /** One playground's drills, in order. */
    final class Lane {
        private final String name;
        private volatile String label = "waiting";
        private volatile long doneMillis;
        private volatile long drillMillis;
        private volatile long loadFromNanos = -1;

        private Lane(String name) {
            this.name = name;
        }

        /** Something slow outside a drill, such as starting the playground. */
        void step(String what) {
            label = what;
            line(name + ": " + what + " ...");
        }

        /** A drill's own progress line. */
        void line(String line) {
            DrillStatus.this.line(line);
        }

        /** A drill of {@code duration} entered {@code phase} at {@code atMillis} of its clock. */
        void phase(Scenario scenario, Duration duration, DrillPhase phase, long atMillis) {
            label = scenario.id() + " " + phase.label();
            switch (phase) {
                case LOAD -> {
                    drillMillis = duration.toMillis();
                    loadFromNanos = ticker.getAsLong() - TimeUnit.MILLISECONDS.toNanos(atMillis);
                }
                case DONE -> {
                    doneMillis += drillMillis;
                    loadFromNanos = -1;
                }
                default -> { }
            }
        }

        private long progressMillis() {
            long from = loadFromNanos;
            long running = from < 0 ? 0 : TimeUnit.NANOSECONDS.toMillis(ticker.getAsLong() - from);
            return doneMillis + Math.min(running, drillMillis);
        }
    }

    private static boolean stderrIsTerminal() {
        try {
            String target = Files.readSymbolicLink(Path.of("/proc/self/fd/2")).toString();
            return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
        } catch (IOException | UnsupportedOperationException e) {
            return System.console() != null;
        }
    }
}
