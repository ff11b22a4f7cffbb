package io.unitas.playground;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One process the deployment started: its name ({@code cn/gateway}), its command, its log file (stdout and stderr,
 * appended across restarts). {@link #kill} is {@code kill -9}; {@link #stop} asks first.
 */
final class ChildProcess {

    private final String name;
    private final List<String> command;
    private final Path log;
    private volatile Process process;

    ChildProcess(String name, List<String> command, Path log) {
        this.name = name;
        this.command = List.copyOf(command);
        this.log = log;
    }

    String name() {
        return name;
    }

    Path log() {
        return log;
    }

    /** Starts it (again, after a kill), its output appended to its log. */
    synchronized ChildProcess start() {
        if (alive()) {
            return this;
        }
        try {
            Files.createDirectories(log.getParent());
            process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
            process.getOutputStream().close();
        } catch (IOException e) {
            throw new UncheckedIOException(name + ": cannot start " + command.get(0) + ": " + e.getMessage(), e);
        }
        return this;
    }

    boolean alive() {
        Process p = process;
        return p != null && p.isAlive();
    }

    /** Its process id, or -1 before it started. */
    long pid() {
        Process p = process;
        return p == null ? -1 : p.pid();
    }

    /** It and whatever it started, while they run. */
    Stream<ProcessHandle> handles() {
        Process p = process;
        return p == null ? Stream.empty() : Stream.concat(Stream.of(p.toHandle()), p.descendants())
                                                  .filter(ProcessHandle::isAlive);
    }

    /** {@code SIGKILL} (what {@link Process#destroyForcibly} sends on Linux): nothing flushed, nothing closed. */
    void kill() {
        Process p = process;
        if (p != null) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            await(p, 10);
        }
    }

    /**
     * {@code SIGTERM}, then {@code SIGKILL} after 30 s (room for a JVM on a loaded machine to write its class-data
     * archive as it exits).
     */
    void stop() {
        Process p = process;
        if (p == null || !p.isAlive()) {
            return;
        }
        p.destroy();
        if (!await(p, 30)) {
            kill();
        }
    }

    private static boolean await(Process p, int seconds) {
        try {
            return p.waitFor(seconds, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Waits up to {@code timeout} for it to exit; whether it has. */
    boolean awaitExit(java.time.Duration timeout) {
        Process p = process;
        return p == null || await(p, (int) Math.max(1, timeout.toSeconds()));
    }

    /** Its exit status, once it has exited. */
    int exitValue() {
        return process.exitValue();
    }

    /**
     * Sends it {@code signal} ({@code STOP}, {@code CONT}) with {@code kill}: the JDK sends only {@code TERM} and
     * {@code KILL}.
     */
    void signal(String signal) {
        Process p = process;
        if (p == null || !p.isAlive()) {
            throw new IllegalStateException(name + ": not running (expected: a running process to send SIG" + signal
                                            + ")");
        }
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid())).redirectErrorStream(true)
                                                                                          .start();
            String out = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (kill.waitFor() != 0) {
                throw new IllegalStateException(name + ": kill -" + signal + " " + p.pid() + " failed: " + out);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(name + ": cannot run kill -" + signal + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(name + ": interrupted sending SIG" + signal, e);
        }
    }

    /** The last lines of its log, for an error message. */
    String tail(int lines) {
        try {
            List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException | UncheckedIOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    @Override
    public String toString() {
        return name + (alive() ? " pid " + pid() : " (not running)");
    }
}
