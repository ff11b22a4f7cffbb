package io.unitas.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.unitas.config.internal.DurationFormat;
import io.unitas.control.client.ControlClient;
import io.unitas.control.client.ControlException;
import io.unitas.control.client.wire.DocumentText;
import io.unitas.control.client.wire.FenceRequest;
import io.unitas.control.client.wire.SwitchoverRequest;
import io.unitas.control.client.wire.SwitchoverStarted;
import io.unitas.control.client.wire.SwitchoverView;
import io.unitas.core.ProblemDetail;
import io.unitas.control.ControlToken;
import io.unitas.control.Role;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code unitas ctl}: the control plane's command-line client. Exit codes say the outcome, so that a script can
 * act on it: 0 done (for {@code switch --wait}: the units moved), 1 refused or not done (a conflicting or stale
 * change, a refused plan, a switchover that rolled back or was aborted), 2 bad input (the server's problems, one
 * per line), 4 not allowed (no or wrong token), 5 cannot reach the control plane (or it cannot reach its store).
 */
@Command(name = "ctl",
         description = "Talk to a running control plane: get, apply -f, fence, unfence, switch, promote, accept, "
                       + "abort, audit, budgets, watch, token, reset-health.",
         mixinStandardHelpOptions = true,
         exitCodeListHeading = "%nExit codes:%n",
         exitCodeList = {"0:done; for switch --wait and promote: the units moved",
                         "1:refused (conflict, stale revision, refused plan, not found); for switch --wait and "
                         + "promote: the switchover rolled back or aborted",
                         "2:bad input (each problem on its own line)",
                         "4:not allowed (no or wrong token, or the role may not)",
                         "5:cannot reach the control plane, or it cannot reach its store"},
         subcommands = {CtlCommand.Get.class, CtlCommand.Apply.class, CtlCommand.Fence.class,
                        CtlCommand.Unfence.class, CtlCommand.Switch.class, CtlCommand.Promote.class,
                        CtlCommand.Accept.class, CtlCommand.Abort.class,
                        CtlCommand.Audit.class, CtlCommand.Budgets.class, CtlCommand.Watch.class,
                        CtlCommand.Token.class,
                        CtlCommand.ResetHealth.class})
final class CtlCommand {

    /** A change was refused, or a switchover ended without moving the units. */
    static final int EXIT_REFUSED = 1;
    /** No token, a wrong one, or a role that may not. */
    static final int EXIT_FORBIDDEN = 4;
    /** The control plane cannot be reached, or cannot reach its store. */
    static final int EXIT_UNREACHABLE = 5;

    private static final ObjectMapper JSON = new ObjectMapper();

    @ParentCommand
    Main main;

    @Option(names = "--server", defaultValue = "http://127.0.0.1:7070", scope = picocli.CommandLine.ScopeType.INHERIT,
            description = "the control plane (default: ${DEFAULT-VALUE})")
    URI server;

    @Option(names = "--token", defaultValue = "${env:UNITAS_TOKEN}", scope = picocli.CommandLine.ScopeType.INHERIT,
            description = "bearer token (default: $UNITAS_TOKEN)")
    String token;

    ControlClient client() {
        return ControlClient.of(server, token);
    }

    /** {@code --reason}: why, recorded in the audit log (and, for fences, shown with refused writes). */
    static final class Reason {
        @Option(names = "--reason", defaultValue = "", description = "why, for the audit log")
        String text;
    }

    /** Reads {@code viewer}, {@code reporter}, {@code operator}, {@code admin}. */
    static final class RoleConverter implements picocli.CommandLine.ITypeConverter<Role> {
        @Override
        public Role convert(String text) {
            try {
                return Role.fromName(text);
            } catch (IllegalArgumentException e) {
                throw new picocli.CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }

    /** Prints a refusal as one line per problem and maps its status to an exit code. */
    int fail(String command, ProblemDetail problem, java.util.function.UnaryOperator<String> errorLine) {
        Object errors = problem.extensions().get("errors"); // a document's errors with their file and line
        if (errors instanceof JsonNode lines && lines.isArray() && !lines.isEmpty()) {
            lines.forEach(e -> main.err().println(errorLine.apply(e.asText())));
        } else if (!problem.problems().isEmpty()) {
            problem.problems().forEach(p -> main.err().println(p.toString()));
        } else {
            main.err().println("unitas ctl " + command + ": " + problem.status() + " " + problem.detail());
        }
        return switch (problem.status()) {
            case 400, 422, 428 -> Main.EXIT_USAGE;
            case 401, 403 -> EXIT_FORBIDDEN;
            case 503 -> EXIT_UNREACHABLE;
            default -> EXIT_REFUSED;
        };
    }

    /** Runs a request, turning a refusal into its problem's lines and an unreachable server into exit code 5. */
    <T> int call(String command, java.util.function.Function<ControlClient, T> request,
                 java.util.function.ToIntFunction<T> onOk) {
        return call(command, request, onOk, line -> line);
    }

    /** {@link #call}, with the server's {@code name:line:} error lines passed through {@code errorLine}. */
    <T> int call(String command, java.util.function.Function<ControlClient, T> request,
                 java.util.function.ToIntFunction<T> onOk, java.util.function.UnaryOperator<String> errorLine) {
        T answer;
        try {
            answer = request.apply(client());
        } catch (ControlException e) {
            return fail(command, e.problem(), errorLine);
        } catch (UncheckedIOException e) {
            main.err().println("unitas ctl " + command + ": " + e.getMessage());
            return EXIT_UNREACHABLE;
        }
        return onOk.applyAsInt(answer);
    }

    static JsonNode parse(String text) {
        try {
            return JSON.readTree(text);
        } catch (JsonProcessingException e) {
            return JSON.createObjectNode().put("detail", text);
        }
    }

    static String pretty(JsonNode node) {
        try {
            return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    @Command(name = "get", mixinStandardHelpOptions = true,
             description = "Print the state (or one part: topology, rules, fences, health, switchover) as JSON.")
    static final class Get implements Callable<Integer> {
        @ParentCommand
        CtlCommand ctl;

        @Parameters(arity = "0..1", paramLabel = "PART", defaultValue = "state",
                    description = "state (default), topology, rules, fences, health or switchover")
        String part;

        @Override
        public Integer call() {
            return ctl.call("get", ControlClient::state, res -> {
                JsonNode state = parse(res.json());
                JsonNode shown = part.equals("state") ? state : state.path(part);
                if (shown.isMissingNode()) {
                    ctl.main.err().println("unitas ctl get: '" + part
                            + "' (expected: state, topology, rules, fences, health or switchover)");
                    return Main.EXIT_USAGE;
                }
                ctl.main.out().println(pretty(shown));
                return 0;
            });
        }
    }

    @Command(name = "apply", mixinStandardHelpOptions = true,
             description = "Replace the topology, the rules or the failover policy with a YAML or JSON file, "
                           + "validated as a whole.")
    static final class Apply implements Callable<Integer> {
        @ParentCommand
        CtlCommand ctl;

        @Option(names = "-f", required = true, paramLabel = "FILE",
                description = "topology, rules or failover policy, YAML or JSON")
        Path file;

        @Option(names = "--kind", description = "topology, rules or failover (default: failover if the file has "
                                                + "'groups', else rules if it has 'units', else topology)")
        String kind;

        @Option(names = "--revision", description = "the revision this replaces (default: the current one)")
        Long revision;

        @Mixin
        Reason reason;

        @Override
        public Integer call() throws IOException {
            String text = Files.readString(file);
            String what = kind != null ? kind : text.contains("groups") ? "failover"
                          : text.contains("units") ? "rules" : "topology";
            boolean yaml = !file.toString().endsWith(".json");
            DocumentText document = yaml ? DocumentText.yaml(text) : DocumentText.json(text);
            if (!List.of("topology", "rules", "failover").contains(what)) {
                ctl.main.err().println("unitas ctl apply: --kind: '" + what
                                       + "' (expected: topology, rules or failover)");
                return Main.EXIT_USAGE;
            }
            return ctl.call("apply", c -> {
                long rev = revision != null ? revision : c.state().revision();
                return switch (what) {
                    case "topology" -> c.replaceTopology(document, rev, reason.text);
                    case "rules" -> c.replaceRules(document, rev, reason.text);
                    default -> c.replaceFailover(document, rev, reason.text);
                };
            }, res -> {
                ctl.main.out().println(what + " applied: revision " + res.revision());
                return 0;
            }, line -> line.startsWith(what + (yaml ? ".yaml:" : ".json:")) // name the user's file, not ours
                       ? file + line.substring(what.length() + 5) : line);
        }
    }

    @Command(name = "fence", mixinStandardHelpOptions = true,
             description = "Fence writes of units (gateways refuse their writes; reads go on).")
    static final class Fence implements Callable<Integer> {
        @ParentCommand
        CtlCommand ctl;

        @Parameters(arity = "1..*", paramLabel = "UNIT")
        List<String> units;

        @Mixin
        Reason reason;

        @Option(names = "--retry-after", paramLabel = "DURATION",
                description = "What refused writes are told to wait before trying again: about as long as the "
                              + "fence will hold (default: 5s; at least 1s).")
        String retryAfter;

        @Override
        public Integer call() {
            Duration wait = null;
            if (retryAfter != null) {
                try {
                    wait = DurationFormat.parse(retryAfter);
                } catch (IllegalArgumentException e) {
                    ctl.main.err().println("unitas ctl fence: --retry-after: " + e.getMessage());
                    return Main.EXIT_USAGE;
                }
            }
            FenceRequest request = new FenceRequest(units, reason.text, wait);
            return ctl.call("fence", c -> c.fence(request), res -> {
                ctl.main.out().println("fenced " + String.join(", ", units) + ": revision " + res.revision());
                return 0;
            });
        }
    }

    @Command(name = "unfence", mixinStandardHelpOptions = true, description = "Lift the write fence of a unit.")
    static final class Unfence implements Callable<Integer> {
        @ParentCommand
        CtlCommand ctl;

        @Parameters(paramLabel = "UNIT")
        String unit;

        @Mixin
        Reason reason;

        @Override
        public Integer call() {
            return ctl.call("unfence", c -> c.liftFence(unit, reason.text), res -> {
                ctl.main.out().println("unfenced " + unit + ": revision " + res.revision());
                return 0;
            });
        }
    }

    /** The units to move: a list, or every unit of a region. */
    static final class Moving {
        @Option(names = "--units", split = ",", paramLabel = "UNIT", required = true, description = "units to move")
        List<String> units;

        @Option(names = "--drain", paramLabel = "REGION", required = true, description = "move every unit of REGION")
        String drain;
    }

    @Command(name = "switch", mixinStandardHelpOptions = true,
             description = "Move units to another region: plan, fence, catch up, flip, unfence.")
    static final class Switch implements Callable<Integer> {
        @ParentCommand
        CtlCommand ctl;

        @ArgGroup(multiplicity = "1")
        Moving moving;

        @Option(names = "--to", paramLabel = "REGION",
                description = "target region (with --drain, default: the first healthy region it fails over to)")
        String to;

        @Option(names = "--max-lag", defaultValue = "0ms", converter = ProbeCommand.DurationConverter.class,
                description = "flip once the moving units' replication lag from their home to the target, as the "
                              + "home reports it, is at most this (default: ${DEFAULT-VALUE}: caught up)")
        Duration maxLag;

        @Option(names = "--timeout", defaultValue = "60s", converter = ProbeCommand.DurationConverter.class,
                description = "roll back if not flipped by then (default: ${DEFAULT-VALUE})")
        Duration timeout;

        @Option(names = "--force", description = "run even if a region would be over capacity")
        boolean force;

        @Option(names = "--dry-run", description = "print the plan; move nothing")
        boolean dryRun;

        @Option(names = "--wait", description = "follow the switchover until it ends")
        boolean await;

        @Mixin
        Reason reason;

        @Override
        public Integer call() {
            SwitchoverRequest request = (moving.units != null
                    ? SwitchoverRequest.move(moving.units, to) : SwitchoverRequest.drain(moving.drain, to))
                    .withMaxLag(maxLag).withTimeout(timeout).withForce(force).withDryRun(dryRun)
                    .withReason(reason.text);
            return ctl.call("switch", c -> c.startSwitchover(request), res -> {
                printPlan(res);
                if (dryRun) {
                    return 0;
                }
                String id = res.switchover().map(SwitchoverView::id).orElse("");
                ctl.main.out().println("switchover " + id + " started");
                return await ? ctl.follow("switch", id) : 0;
            });
        }

        private void printPlan(SwitchoverStarted started) {
            var plan = started.plan();
            ctl.main.out().println("plan: move to " + plan.target());
            plan.moves().forEach(m -> ctl.main.out().printf("  %-12s %s -> %s  load %s%n",
                    m.unit(), m.from(), m.to(), m.load()));
            ctl.main.out().println("  region   load before -> after");
            plan.load().entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> ctl.main.out().printf(
                    "  %-8s %11s -> %s%n", e.getKey(), e.getValue().before(), e.getValue().after()));
            plan.warnings().forEach(w -> ctl.main.out().println("  warning: " + w));
        }
    }

    /** Follows switchover {@code id} until it ends, printing each step; 0 when its units moved, else 1. */
    int follow(String command, String id) {
        Map<String, String> printed = new LinkedHashMap<>();
        CountDownLatch ended = new CountDownLatch(1);
        String[] last = {""};
        try (AutoCloseable watch = client().watch(-1, event -> {
            JsonNode sw = parse(event.json()).path("switchover");
            if (!sw.path("id").asText().equals(id)) {
                return;
            }
            sw.path("steps").forEach(step -> {
                String key = step.path("phase").asText();
                if (printed.putIfAbsent(key, step.path("at").asText()) == null) {
                    main.out().println("  " + step.path("at").asText() + "  " + key + ": "
                                       + step.path("detail").asText());
                }
            });
            last[0] = sw.path("phase").asText();
            if (List.of("completed", "rolled_back", "aborted").contains(last[0])) {
                ended.countDown();
            }
        })) {
            ended.await();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        if (last[0].equals("completed")) {
            return 0;
        }
        main.err().println("unitas ctl " + command + ": switchover " + id + " " + last[0] + ": the units did not move");
        return EXIT_REFUSED;
    }

    @Command(name = "promote", mixinStandardHelpOptions = true,
             description = "Move units to another region without waiting on their replication lag, for a home that "
                           + "cannot ship (down, or a stuck backlog); prints each unit's RPO: its last known lag, "
                           + "what may not have shipped. Follows the move to its end.")
    static final class Promote implements Callable<Integer> {
        @ParentCommand
        CtlCommand ctl;

        @Parameters(paramLabel = "UNIT", arity = "1..*", description = "units to move")
        List<String> units;

        @Option(names = "--to", paramLabel = "REGION", required = true, description = "the units' new home")
        String to;

        @Mixin
        Reason reason;

        @Override
        public Integer call() {
            SwitchoverRequest request = SwitchoverRequest.promote(units, to).withReason(reason.text);
            return ctl.call("promote", c -> c.startSwitchover(request), res -> {
                SwitchoverView sw = res.switchover().orElseThrow();
                ctl.main.out().println("promotion " + sw.id() + " started: " + String.join(", ", units) + " -> " + to);
                ctl.printRpo(sw);
                return ctl.follow("promote", sw.id());
            });
        }
    }

    /** A promotion's RPO per unit: its last known lag, what may not have shipped. */
    void printRpo(SwitchoverView sw) {
        sw.rpoMs().entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> main.out().printf(
                "  RPO %-12s %s%n", e.getKey(), e.getValue() < 0 ? "unknown (never measured)"
                                                                  : "<= " + e.getValue() + " ms of writes"));
    }

    @Command(name = "accept", mixinStandardHelpOptions = true,
             description = "Accept a proposal of the failover policy (mode ask; listed under proposals in ctl get "
                           + "state and in the audit log): start the move it proposes and follow it to its end.")
    static final class Accept implements Callable<Integer> {
        @ParentCommand
        CtlCommand ctl;

        @Parameters(paramLabel = "ID", description = "the proposal, group@home (cn-users@cn)")
        String id;

        @Mixin
        Reason reason;

        @Override
        public Integer call() {
            return ctl.call("accept", c -> c.acceptProposal(id, reason.text), res -> {
                SwitchoverView sw = res.switchover().orElseThrow();
                ctl.main.out().println("proposal " + id + " accepted: " + (sw.rpoMs().isEmpty() ? "switchover "
                                       : "promotion ") + sw.id() + " started");
                ctl.printRpo(sw);
                return ctl.follow("accept", sw.id());
            });
        }
    }

    @Command(name = "abort", mixinStandardHelpOptions = true,
             description = "Abort a switchover before its flip: fences lifted, mapping unchanged.")
    static final class Abort implements Callable<Integer> {
        @ParentCommand
        CtlCommand ctl;

        @Parameters(paramLabel = "ID")
        String id;

        @Mixin
        Reason reason;

        @Override
        public Integer call() {
            return ctl.call("abort", c -> c.abortSwitchover(id, reason.text), res -> {
                ctl.main.out().println("switchover " + id + ": " + res.outcome());
                return 0;
            });
        }
    }

    @Command(name = "audit", mixinStandardHelpOptions = true, description = "Print the audit log, oldest first.")
    static final class Audit implements Callable<Integer> {
        @ParentCommand
        CtlCommand ctl;

        @Option(names = "--after", defaultValue = "0", description = "only entries after this sequence number")
        long after;

        @Option(names = "--limit", defaultValue = "50", description = "at most this many, the newest (default: 50)")
        int limit;

        @Override
        public Integer call() {
            return ctl.call("audit", c -> c.audit(after, limit), res -> {
                res.entries().forEach(e -> ctl.main.out().printf("%6d %s %-8s %-18s %-24s %-16s %s%s%n",
                        e.seq(), e.at(), e.actor(), e.action(), e.target(), e.outcome(), e.detail(),
                        e.reason().isEmpty() ? "" : " (reason: " + e.reason() + ")"));
                return 0;
            });
        }
    }

    @Command(name = "budgets", mixinStandardHelpOptions = true,
             description = "Print each staleness budget of the control plane's consistency contract (--consistency) "
                           + "against the largest replication lag its regions report now.")
    static final class Budgets implements Callable<Integer> {
        @ParentCommand
        CtlCommand ctl;

        @Override
        public Integer call() {
            return ctl.call("budgets", ControlClient::budgets, budgets -> {
                PrintStream out = ctl.main.out();
                if (budgets.isEmpty()) {
                    out.println("no staleness budgets (the control plane was started without --consistency, or its "
                                + "contract declares none)");
                    return 0;
                }
                out.printf("%-24s %-8s %-12s %-12s %s%n", "DECLARED", "BUDGET", "LARGEST LAG", "STATUS", "LAGGING");
                budgets.forEach(b -> out.printf("%-24s %-8s %-12s %-12s %s%n", b.name(),
                        DurationFormat.format(b.budget()), b.largestLagMs() < 0 ? "none yet" : b.largestLagMs() + " ms",
                        b.over() ? "OVER BUDGET" : "within", b.lagging().isEmpty() ? "-" : b.lagging()));
                return 0;
            });
        }
    }

    @Command(name = "watch", mixinStandardHelpOptions = true,
             description = "Follow the state: one line per revision, or the whole state with --json.")
    static final class Watch implements Callable<Integer> {
        @ParentCommand
        CtlCommand ctl;

        @Option(names = "--since", defaultValue = "-1", description = "resume after this revision")
        long since;

        @Option(names = "--json", description = "print each state as one line of JSON")
        boolean json;

        @Option(names = "--count", defaultValue = "0", description = "stop after this many states (0: never)")
        int count;

        @Override
        public Integer call() throws Exception {
            CountDownLatch done = new CountDownLatch(count > 0 ? count : Integer.MAX_VALUE);
            try (AutoCloseable watch = ctl.client().watch(since, event -> {
                if (json) {
                    ctl.main.out().println(event.json());
                } else {
                    JsonNode s = parse(event.json());
                    ctl.main.out().println("revision " + event.revision() + " at " + s.path("updated_at").asText()
                            + ": fences " + s.path("fences").size() + ", switchover "
                            + s.path("switchover").path("id").asText("-") + " "
                            + s.path("switchover").path("phase").asText(""));
                }
                ctl.main.out().flush();
                done.countDown();
            })) {
                done.await();
            }
            return 0;
        }
    }

    @Command(name = "token", mixinStandardHelpOptions = true,
             description = "Create a token: prints the secret (once) and the line to add to the tokens file.")
    static final class Token implements Callable<Integer> {
        @ParentCommand
        CtlCommand ctl;

        @Option(names = "--name", required = true, description = "who holds it, as the audit log names them")
        String name;

        @Option(names = "--role", required = true, converter = RoleConverter.class,
                description = "viewer, observer, reporter, operator or admin")
        Role role;

        @Option(names = "--region", defaultValue = "", paramLabel = "REGION",
                description = "the one region whose health the token may report (bind every health agent's token)")
        String region;

        @Override
        public Integer call() {
            ControlToken t;
            try {
                t = ControlToken.generate(name, role, region);
            } catch (IllegalArgumentException e) {
                ctl.main.err().println("unitas ctl token: " + e.getMessage());
                return Main.EXIT_USAGE;
            }
            ctl.main.out().println("token:      " + t.secret());
            ctl.main.out().println("tokens file: " + t.fileLine());
            return 0;
        }
    }

    @Command(name = "reset-health", mixinStandardHelpOptions = true,
             description = "Forget a region's last health report (admin), so that its agent's next report is taken "
                           + "whatever its sequence; the region counts as unhealthy until then.")
    static final class ResetHealth implements Callable<Integer> {
        @ParentCommand
        CtlCommand ctl;

        @Parameters(paramLabel = "REGION")
        String region;

        @Mixin
        Reason reason;

        @Override
        public Integer call() {
            return ctl.call("reset-health", c -> c.resetHealth(region, reason.text), res -> {
                ctl.main.out().println("health of " + region + " reset: revision " + res.revision());
                return 0;
            });
        }
    }
}
