package io.unitas.cli;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.LongConsumer;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

import io.unitas.config.ConfigException;
import io.unitas.core.HealthSnapshot;
import io.unitas.core.Region;
import io.unitas.core.Topology;
import io.unitas.core.capacity.CascadeStep;
import io.unitas.core.capacity.RegionLoad;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** {@code unitas replay}: every user of a file through the route decision, offline, before a failure does it. */
@Command(name = "replay",
         description = {"Route every user of --users under a health snapshot and write user_id,home,target,reason "
                        + "in input order.",
                        "Reasons: home, failover, no_healthy_region, unknown_region; with --spillover also "
                        + "spillover and overflow."},
         exitCodeListHeading = "%nExit codes:%n",
         exitCodeList = {"0:done", "2:invalid input (nothing is written to --out or --summary)"},
         mixinStandardHelpOptions = true)
final class ReplayCommand implements Callable<Integer> {

    @ParentCommand
    Main main;

    @Mixin
    TopologyAndHealth inputs;

    @Option(names = "--users", required = true, paramLabel = "FILE",
            description = "users CSV: user_id,region[,load]")
    Path users;

    @Option(names = "--out", paramLabel = "FILE", description = "where to write the routes (default: stdout)")
    Path out;

    @Option(names = "--summary", paramLabel = "FILE", description = "where to write the JSON summary")
    Path summary;

    @Option(names = "--cascade", description = "trip overloaded regions round by round and route the rest")
    boolean cascade;

    @Option(names = "--spillover",
            description = "keep regions under capacity: displaced users take the first fallback region with room "
                          + "(with --cascade, every round of the cascade places users this way)")
    boolean spillover;

    @Override
    public Integer call() throws IOException {
        Topology t = inputs.topology();
        HealthSnapshot h = inputs.health(t);
        List<Path> temps = new ArrayList<>();
        try {
            Path routesTemp = out == null ? null : temp(out, temps);
            Path summaryTemp = summary == null ? null : temp(summary, temps);
            Replay.Result result;
            long total = sizeOf(users);
            try (Progress progress = Progress.onTerminal(main, total)) {
                Replay replay = new Replay(t, h, users, cascade, spillover, progress);
                progress.scale(replay.passes());
                if (routesTemp == null) {
                    result = replay.run(main.out());
                } else {
                    try (OutputStream os = Files.newOutputStream(routesTemp)) {
                        result = replay.run(os);
                    }
                }
            }
            if (summaryTemp != null) {
                writeSummary(summaryTemp, result);
            }
            // Only now, with everything written, do the results replace anything of the same name.
            replace(routesTemp, out);
            replace(summaryTemp, summary);
            return 0;
        } finally {
            for (Path p : temps) {
                Files.deleteIfExists(p);
            }
        }
    }

    private static void replace(Path written, Path target) throws IOException {
        if (written != null && !written.equals(target)) {
            Files.move(written, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
    }

    private static long sizeOf(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            return 0; // reading it will say what is wrong, with the file's name
        }
    }

    /**
     * An empty file beside {@code target}, moved onto it once everything is written; or {@code target} itself when it
     * is a device, pipe or link ({@code /dev/stdout}), which must be written through, never replaced.
     */
    private static Path temp(Path target, List<Path> temps) {
        if (Files.exists(target, LinkOption.NOFOLLOW_LINKS) && !Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS)) {
            return target;
        }
        Path dir = target.toAbsolutePath().getParent();
        try {
            Path temp = Files.createTempFile(dir, "." + target.getFileName() + ".", ".tmp");
            temps.add(temp);
            return temp;
        } catch (IOException e) {
            throw new ConfigException(target + ": cannot write: " + e);
        }
    }

    // Written with the streaming generator: an ObjectMapper would cost more start-up than the whole summary.
    private static void writeSummary(Path file, Replay.Result r) throws IOException {
        try (OutputStream os = new BufferedOutputStream(Files.newOutputStream(file));
             JsonGenerator g = new JsonFactory().createGenerator(os).useDefaultPrettyPrinter()) {
            g.writeStartObject();
            g.writeNumberField("users", r.users());
            g.writeObjectFieldStart("by_reason");
            for (Map.Entry<String, Long> e : r.byReason().entrySet()) {
                g.writeNumberField(e.getKey(), e.getValue());
            }
            g.writeEndObject();
            g.writeObjectFieldStart("regions");
            for (RegionLoad load : r.plan().regions()) {
                g.writeObjectFieldStart(load.region().id());
                g.writeFieldName("load");
                number(g, load.load());
                g.writeFieldName("capacity");
                if (load.capacity().isPresent()) {
                    number(g, load.capacity().getAsDouble());
                } else {
                    g.writeNull();
                }
                g.writeBooleanField("overloaded", load.overloaded());
                g.writeEndObject();
            }
            g.writeEndObject();
            g.writeArrayFieldStart("cascade");
            for (CascadeStep step : r.cascade()) {
                g.writeStartObject();
                g.writeNumberField("step", step.step());
                g.writeArrayFieldStart("tripped");
                for (Region tripped : step.tripped()) {
                    g.writeString(tripped.id());
                }
                g.writeEndArray();
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
            g.writeRaw('\n');
        }
    }

    /** Whole numbers print without a fraction, as they were most likely written. */
    private static void number(JsonGenerator g, double v) throws IOException {
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            g.writeNumber((long) v);
        } else {
            g.writeNumber(v);
        }
    }

    /** A progress bar on stderr, shown only when stderr is a terminal. */
    private static final class Progress implements LongConsumer, AutoCloseable {
        private final ProgressBar bar;
        private final long size;

        private Progress(ProgressBar bar, long size) {
            this.bar = bar;
            this.size = size;
        }

        static Progress onTerminal(Main main, long size) {
            if (main.err() != System.err || !stderrIsTerminal()) {
                return new Progress(null, size);
            }
            return new Progress(new ProgressBarBuilder().setTaskName("replay").setInitialMax(size)
                    .setUnit(" MiB", 1 << 20).setConsumer(new ConsoleProgressBarConsumer(System.err)).build(), size);
        }

        private static boolean stderrIsTerminal() {
            try {
                String target = Files.readSymbolicLink(Path.of("/proc/self/fd/2")).toString();
                return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
            } catch (IOException | UnsupportedOperationException e) {
                return System.console() != null;
            }
        }

        void scale(int passes) {
            if (bar != null) {
                bar.maxHint(size * passes);
            }
        }

        @Override
        public void accept(long bytes) {
            if (bar != null) {
                bar.stepTo(bytes);
            }
        }

        @Override
        public void close() {
            if (bar != null) {
                bar.stepTo(bar.getMax());
                bar.close();
            }
        }
    }
}
