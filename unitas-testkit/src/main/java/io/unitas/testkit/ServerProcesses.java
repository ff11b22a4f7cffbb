package io.unitas.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/** Starting, waiting for and cleaning up after server processes, shared by the fixtures. */
final class ServerProcesses {

    private static final boolean ROOT = "root".equals(System.getProperty("user.name"));

    private ServerProcesses() {}

    /** {@code command}, run as {@code user} when this JVM runs as root (servers refuse to run as root). */
    static List<String> as(String user, String... command) {
        List<String> full = new ArrayList<>();
        if (ROOT && user != null) {
            full.addAll(List.of("runuser", "-u", user, "--"));
        }
        full.addAll(List.of(command));
        return full;
    }

    /** Runs {@code command} to completion, failing with its output when it exits non-zero. */
    static String run(Duration timeout, List<String> command) {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            process.getOutputStream().close();
            byte[] out = process.getInputStream().readAllBytes();
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + ": timed out after " + timeout);
            }
            String text = new String(out, StandardCharsets.UTF_8);
            if (process.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + ": exit " + process.exitValue()
                                                + "\n" + text);
            }
            return text;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Starts a long-running server whose output goes to {@code log}. */
    static Process start(List<String> command, Path log) {
        try {
            return new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Stops a server started by {@link #start}: politely first, then forcibly. */
    static void stop(Process process) {
        if (process == null || !process.isAlive()) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(15, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Calls {@code attempt} until it returns without throwing, or fails after {@code timeout} with the last error. */
    static <T> T await(String what, Duration timeout, Callable<T> attempt) {
        long deadline = System.nanoTime() + timeout.toNanos();
        Exception last;
        do {
            try {
                return attempt.call();
            } catch (Exception e) {
                last = e;
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        } while (System.nanoTime() < deadline);
        throw new IllegalStateException(what + ": not ready after " + timeout + ": " + last, last);
    }

    /** A fresh temporary directory that {@code user} owns (when this JVM runs as root). */
    static Path tempDir(String prefix, String user) {
        try {
            Path dir = Files.createTempDirectory(prefix);
            if (ROOT && user != null) {
                run(Duration.ofSeconds(10), List.of("chown", user + ":", dir.toString()));
            }
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Deletes {@code dir} and everything in it, ignoring what is already gone. */
    static void delete(Path dir) {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try {
            Files.walkFileTree(dir, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                    Files.deleteIfExists(d);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            // A leftover temporary directory must not fail the test run.
        }
    }

    /** Runs {@code stop} when the JVM exits. */
    static void onExit(Runnable stop) {
        Runtime.getRuntime().addShutdownHook(new Thread(stop, "unitas-testkit-stop"));
    }
}
