package io.unitas.cli;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Runs the CLI in-process and captures what it prints; writes the small input files the tests need. */
record Cli(int exit, String out, String err) {

    static Cli run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = Main.run(new PrintStream(out, true, StandardCharsets.UTF_8),
                            new PrintStream(err, true, StandardCharsets.UTF_8), args);
        return new Cli(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** Writes {@code text} to {@code dir/name} and returns its path as a string. */
    static String file(Path dir, String name, String text) {
        try {
            return Files.writeString(dir.resolve(name), text).toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The repository's root (tests run in the module's directory). */
    static Path root() {
        return Path.of("").toAbsolutePath().getParent();
    }
}
