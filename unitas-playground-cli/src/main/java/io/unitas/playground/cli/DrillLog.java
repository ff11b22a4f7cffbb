package io.unitas.playground.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import java.util.stream.Collectors;

/**
 * While drills run, what the pieces log goes to a file instead of the terminal: a drill's expected failures (health
 * pushes refused while the control plane is down, a dead region's refused connections) belong in its timeline and
 * summary, not between its lines. Configures the logging backend (SLF4J is bound to {@code java.util.logging} by
 * {@code slf4j-jdk14}) for the duration: the root logger's handlers are replaced by one writing to the file, and
 * stray {@code System.out}/{@code System.err} prints land there too; {@link #close} puts everything back. Warnings
 * and worse are counted per logger for the summary.
 */
final class DrillLog implements AutoCloseable {

    private final Path file;
    private final PrintStream sink;
    private final Logger root = Logger.getLogger("");
    private final Handler[] previousHandlers;
    private final Level previousLevel;
    private final PrintStream previousOut = System.out;
    private final PrintStream previousErr = System.err;
    private final Map<String, Integer> warnings = new TreeMap<>();
    private final Handler toFile;

    private DrillLog(Path file, OutputStream out) {
        this.file = file;
        this.sink = new PrintStream(out, true, StandardCharsets.UTF_8);
        this.previousHandlers = root.getHandlers();
        this.previousLevel = root.getLevel();
        this.toFile = new Handler() {
            private final SimpleFormatter format = new SimpleFormatter();

            @Override
            public void publish(LogRecord record) {
                if (!isLoggable(record)) {
                    return;
                }
                if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
                    synchronized (warnings) {
                        warnings.merge(String.valueOf(record.getLoggerName()), 1, Integer::sum);
                    }
                }
                sink.print(format.format(record));
            }

            @Override
            public void flush() {
                sink.flush();
            }

            @Override
            public void close() {
                sink.flush();
            }
        };
        for (Handler h : previousHandlers) {
            root.removeHandler(h);
        }
        root.addHandler(toFile);
        root.setLevel(Level.INFO);
        System.setOut(sink);
        System.setErr(sink);
    }

    /** Sends the logs to {@code file} (replaced if it exists) until {@link #close}. */
    static DrillLog open(Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        return new DrillLog(file, Files.newOutputStream(file));
    }

    /** The file the logs go to. */
    Path file() {
        return file;
    }

    /** Warnings and errors logged so far, per logger name. */
    Map<String, Integer> warnings() {
        synchronized (warnings) {
            return Map.copyOf(warnings);
        }
    }

    /** One line for the end of a run: where the logs are and what warned, e.g. {@code 36 warnings (HealthPusher 36)}. */
    String summary() {
        Map<String, Integer> w = warnings();
        int total = w.values().stream().mapToInt(Integer::intValue).sum();
        String counts = total == 0 ? "no warnings" : total + (total == 1 ? " warning" : " warnings") + " ("
                + w.entrySet().stream().map(e -> shortName(e.getKey()) + " " + e.getValue())
                   .collect(Collectors.joining(", ")) + ")";
        return "logs: " + file.toAbsolutePath() + " (" + counts + ")";
    }

    private static String shortName(String logger) {
        return logger.substring(logger.lastIndexOf('.') + 1);
    }

    /** Puts the terminal's handlers, the root level and {@code System.out}/{@code System.err} back. */
    @Override
    public void close() {
        System.setOut(previousOut);
        System.setErr(previousErr);
        root.removeHandler(toFile);
        for (Handler h : previousHandlers) {
            root.addHandler(h);
        }
        root.setLevel(previousLevel);
        sink.close();
    }
}
