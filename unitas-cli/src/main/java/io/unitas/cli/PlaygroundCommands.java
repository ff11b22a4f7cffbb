package io.unitas.cli;

import java.util.List;
import java.util.concurrent.Callable;

import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * The playground's commands as the server distribution ({@code unitas.jar}) lists them: their names and
 * descriptions, shared with the commands themselves (module {@code unitas-playground-cli}, which makes
 * {@code unitas-playground.jar}), so that {@code unitas --help} lists every command with either jar. Without the
 * playground on the class path each is a placeholder that says where the command is, and exits 2.
 */
public final class PlaygroundCommands {

    /** {@code unitas up}. */
    public static final String UP = "up";
    public static final String UP_DESCRIPTION = "Start a multi-region playground in this process: control plane and "
                                                + "console; per region a gateway, a health agent, two demo shop "
                                                + "instances and a store; replication between them.";

    /** {@code unitas drill}. */
    public static final String DRILL = "drill";
    public static final String DRILL_DESCRIPTION = "Replay a fault against a fresh playground under load and count "
                                                   + "what users would see. Scenarios: db-readonly, "
                                                   + "replication-backlog, region-down, control-plane-down, "
                                                   + "dns-down, saga-crash, partition; with --processes "
                                                   + "also slow-region, against separate processes (saga-crash: "
                                                   + "its coordinator a process of its own, kill -9ed mid-saga).";

    /** {@code unitas demo}. */
    public static final String DEMO = "demo";
    public static final String DEMO_DESCRIPTION = "Replay the seed's incident (cn's database turns read-only) with "
                                                  + "unitas and with the seed's setup side by side, and compare "
                                                  + "(writes unitas-demo.html unless --report says otherwise; the "
                                                  + "naive playground listens 100 ports above --ports-from).";

    /** The jar that holds them, as the {@code ./unitas} launcher builds it. */
    public static final String JAR = "unitas-playground-cli/target/unitas-playground.jar";

    /** Every playground command's name, in the order the help lists them. */
    static final List<String> NAMES = List.of(UP, DRILL, DEMO);

    private PlaygroundCommands() {}

    /** The placeholder for {@code name}: its description, any arguments, and a run that says where it is. */
    static CommandLine placeholder(Main main, String name) {
        String description = switch (name) {
            case UP -> UP_DESCRIPTION;
            case DRILL -> DRILL_DESCRIPTION;
            case DEMO -> DEMO_DESCRIPTION;
            default -> throw new IllegalArgumentException("playground command: " + name);
        };
        Callable<Integer> run = () -> {
            main.err().println("unitas " + name + ": not in this jar, the server distribution (unitas.jar); the "
                               + "playground's commands are in unitas-playground.jar: run ./unitas " + name
                               + " from a unitas checkout (it builds that jar), or java -jar " + JAR + " " + name);
            return Main.EXIT_USAGE;
        };
        CommandSpec spec = CommandSpec.wrapWithoutInspection(run);
        spec.name(name);
        spec.mixinStandardHelpOptions(true);
        spec.usageMessage().description(description)
            .footer("%nIn unitas-playground.jar (./unitas " + name + " runs it), not in the server distribution.");
        spec.addPositional(PositionalParamSpec.builder().index("0..*").arity("0..*").type(String[].class)
                                              .paramLabel("ARGS").hidden(true).build());
        spec.parser().unmatchedOptionsArePositionalParams(true);
        return new CommandLine(spec);
    }
}
