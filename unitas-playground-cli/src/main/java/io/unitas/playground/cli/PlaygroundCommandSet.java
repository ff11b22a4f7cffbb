package io.unitas.playground.cli;

import io.unitas.cli.CommandSet;
import java.util.List;

/**
 * The playground's commands, {@code up}, {@code drill} and {@code demo}, which {@code unitas} finds on the class path
 * of {@code unitas-playground.jar} (through {@code META-INF/services}) in place of the server distribution's
 * placeholders.
 */
public final class PlaygroundCommandSet implements CommandSet {

    @Override
    public List<Object> commands() {
        return List.of(new UpCommand(), new DrillCommand(), new DemoCommand());
    }
}
