package io.unitas.cli;

import java.util.List;

/**
 * Commands another jar adds to {@code unitas}, found with {@link java.util.ServiceLoader} on the class path: the
 * playground's {@code up}, {@code drill} and {@code demo} come this way from {@code unitas-playground.jar}, which
 * holds this server distribution and the playground. A command named like one of {@link PlaygroundCommands}
 * replaces the placeholder the server distribution lists under that name.
 */
public interface CommandSet {

    /** The commands, each an object annotated with picocli's {@code @Command}, in the order the help lists them. */
    List<Object> commands();
}
