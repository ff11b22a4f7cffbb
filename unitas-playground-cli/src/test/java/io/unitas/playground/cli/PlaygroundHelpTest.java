package io.unitas.playground.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * With the playground on the class path (as in {@code unitas-playground.jar}), {@code up}, {@code drill} and
 * {@code demo} are the playground's commands, not the server distribution's placeholders: each answers
 * {@code --help} with its own options, and {@code unitas --help} lists them among every other command.
 */
class PlaygroundHelpTest {

    @ParameterizedTest(name = "unitas {0} --help")
    @CsvSource({"up, --processes", "drill, --with-example", "demo, --all"})
    void thePlaygroundsCommandsAnswerHelpWithTheirOptions_exit0(String command, String option) {
        Cli r = Cli.run(command, "--help");

        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).startsWith("Usage: unitas " + command).contains(option)
                           .doesNotContain("not in the server distribution");
        assertThat(r.err()).isEmpty();
    }

    @ParameterizedTest(name = "unitas --help lists {0}")
    @CsvSource({"route", "control", "gateway", "dns", "up", "drill", "demo", "siblings", "sagas"})
    void theTopLevelHelpListsEveryCommand(String command) {
        Cli r = Cli.run("--help");

        assertThat(r.exit()).isZero();
        assertThat(r.out()).containsPattern("(?m)^  " + command + " +[A-Z]");
    }
}
