package io.unitas.playground.cli;

import io.unitas.cli.Main;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/** Runs the CLI in-process, the playground's commands found as in {@code unitas-playground.jar}, capturing its output. */
record Cli(int exit, String out, String err) {

    static Cli run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = Main.run(new PrintStream(out, true, StandardCharsets.UTF_8),
                            new PrintStream(err, true, StandardCharsets.UTF_8), args);
        return new Cli(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** The repository's root (tests run in the module's directory). */
    static Path root() {
        return Path.of("").toAbsolutePath().getParent();
    }
}
