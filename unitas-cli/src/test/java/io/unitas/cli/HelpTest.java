package io.unitas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import picocli.CommandLine;

/**
 * Every command and subcommand answers {@code --help} with its usage and exit 0, whatever it requires otherwise.
 * The commands are found by walking picocli's tree, so a new command is covered the moment it is added.
 */
class HelpTest {

    /** Every command's path below {@code unitas}, the root itself as the empty path. */
    static Stream<List<String>> commands() {
        List<List<String>> paths = new ArrayList<>();
        walk(Main.commandLine(System.out, System.err), List.of(), paths);
        return paths.stream();
    }

    private static void walk(CommandLine command, List<String> path, List<List<String>> paths) {
        paths.add(path);
        command.getSubcommands().forEach((name, sub) -> {
            // picocli's help command answers "help --help" with a page of its own; walk it like the others.
            if (sub.getCommandSpec().name().equals(name)) {
                List<String> next = new ArrayList<>(path);
                next.add(name);
                walk(sub, next, paths);
            }
        });
    }

    @ParameterizedTest(name = "unitas {0} --help")
    @MethodSource("commands")
    void everyCommandAnswersHelp_exit0(List<String> path) {
        List<String> args = new ArrayList<>(path);
        args.add("--help");

        Cli r = Cli.run(args.toArray(String[]::new));

        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("Usage: unitas" + (path.isEmpty() ? "" : " " + String.join(" ", path)));
        assertThat(r.err()).isEmpty();
    }

    @Test
    void thePlaygroundsCommands_areListedAndSayWhereTheyAre_exit2() {
        assertThat(Cli.run("--help").out()).contains("  up        " + PlaygroundCommands.UP_DESCRIPTION.substring(0, 40))
                                           .contains("  drill     ").contains("  demo      ");

        Cli r = Cli.run("demo", "--all", "--duration", "5s");

        assertThat(r.exit()).isEqualTo(Main.EXIT_USAGE);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).isEqualTo("unitas demo: not in this jar, the server distribution (unitas.jar); the "
                                      + "playground's commands are in unitas-playground.jar: run ./unitas demo from a "
                                      + "unitas checkout (it builds that jar), or java -jar "
                                      + "unitas-playground-cli/target/unitas-playground.jar demo\n");
    }

    @Test
    void theWalkFindsEveryTopLevelCommandAndTheNestedOnes() {
        assertThat(commands().map(p -> String.join(" ", p)))
                .contains("", "gateway", "dns", "up", "drill", "demo", "ctl", "ctl switch", "rules lookup", "health serve");
    }
}
