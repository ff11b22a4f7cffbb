package io.unitas.cli;

import java.io.IOException;
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
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.unitas.control.client.ControlClient;
import io.unitas.control.client.ControlResponse;
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
                       + "abort, audit, watch, token, reset-health.",
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
                        CtlCommand.Audit.class, CtlCommand.Watch.class, CtlCommand.Token.class,
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
    int fail(String command, ControlResponse res, java.util.function.UnaryOperator<String> errorLine) {
        JsonNode problem = parse(res.body());
        JsonNode errors = problem.path("errors");
        if (errors.isArray() && !errors.isEmpty()) {
            errors.forEach(e -> main.err().println(errorLine.apply(e.asText())));
        } else if (problem.path("problems").isArray() && !problem.path("problems").isEmpty()) {
            problem.path("problems").forEach(p -> main.err().println(
                    (p.path("path").asText().isEmpty() ? "" : p.path("path").asText() + ": ")
                    + p.path("message").asText()));
        } else {
            main.err().println("unitas ctl " + command + ": " + res.status() + " "
                               + problem.path("detail").asText(res.body()));
        }
        return switch (res.status()) {
            case 400, 422, 428 -> Main.EXIT_USAGE;
            case 401, 403 -> EXIT_FORBIDDEN;
            case 503 -> EXIT_UNREACHABLE;
            default -> EXIT_REFUSED;
        };
    }

    /** Runs a request, turning an unreachable server into one line and exit code 5. */
    int call(String command, java.util.function.Function<ControlClient, ControlResponse> request,
             java.util.function.ToIntFunction<ControlResponse> onOk) {
        return call(command, request, onOk, line -> line);
    }

    /** {@link #call}, with the server's {@code name:line:} error lines passed through {@code errorLine}. */
    int call(String command, java.util.function.Function<ControlClient, ControlResponse> request,
             java.util.function.ToIntFunction<ControlResponse> onOk,
             java.util.function.UnaryOperator<String> errorLine) {
        ControlResponse res;
        try {
            res = request.apply(client());
        } catch (UncheckedIOException e) {
            main.err().println("unitas ctl " + command + ": " + e.getMessage());
            return EXIT_UNREACHABLE;
        }
        return res.ok() ? onOk.applyAsInt(res) : fail(command, res, errorLine);
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
            return ctl.call("get", c -> c.get("/api/v1/state"), res -> {
                JsonNode state = res.json();
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
            return ctl.call("apply", c -> {
                long rev = revision != null ? revision : c.get("/api/v1/state").revision();
                return c.send("PUT", "/api/v1/" + what, text, Map.of("If-Match", "\"" + rev + "\"",
                        "Content-Type", yaml ? "application/yaml" : "application/json", "X-Unitas-Reason", reason.text));
            }, res -> {
                ctl.main.out().println(what + " applied: revision " + res.json().path("revision").asLong());
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
            ObjectNode body = JSON.createObjectNode().put("reason", reason.text);
            units.forEach(body.putArray("units")::add);
            if (retryAfter != null) {
                body.put("retry_after", retryAfter);
            }
            return ctl.call("fence", c -> c.post("/api/v1/fences", body.toString()), res -> {
                ctl.main.out().println("fenced " + String.join(", ", units) + ": revision "
                                       + res.json().path("revision").asLong());
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
            return ctl.call("unfence", c -> c.send("DELETE", "/api/v1/fences/" + unit, null,
                                                   Map.of("X-Unitas-Reason", reason.text)), res -> {
                ctl.main.out().println("unfenced " + unit + ": revision " + res.json().path("revision").asLong());
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
            ObjectNode body = JSON.createObjectNode();
            if (moving.units != null) {
                moving.units.forEach(body.putArray("units")::add);
            } else {
                body.put("drain", moving.drain);
            }
            if (to != null) {
                body.put("target", to);
            }
            body.put("max_lag_ms", maxLag.toMillis())
                .put("timeout_ms", timeout.toMillis())
                .put("force", force).put("dry_run", dryRun).put("reason", reason.text);
            return ctl.call("switch", c -> c.post("/api/v1/switchovers", body.toString()), res -> {
                printPlan(res.json().path("plan"));
                if (dryRun) {
                    return 0;
                }
                String id = res.json().path("switchover").path("id").asText();
                ctl.main.out().println("switchover " + id + " started");
                return await ? ctl.follow("switch", id) : 0;
            });
        }

        private void printPlan(JsonNode plan) {
            ctl.main.out().println("plan: move to " + plan.path("target").asText());
            plan.path("moves").forEach(m -> ctl.main.out().printf("  %-12s %s -> %s  load %s%n",
                    m.path("unit").asText(), m.path("from").asText(), m.path("to").asText(), m.path("load").asText()));
            ctl.main.out().println("  region   load before -> after");
            plan.path("load").properties().forEach(e -> ctl.main.out().printf("  %-8s %11s -> %s%n",
                    e.getKey(), e.getValue().path("before").asText(), e.getValue().path("after").asText()));
            plan.path("warnings").forEach(w -> ctl.main.out().println("  warning: " + w.path("message").asText()));
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
            ObjectNode body = JSON.createObjectNode();
            units.forEach(body.putArray("units")::add);
            body.put("target", to).put("promote", true).put("reason", reason.text);
            return ctl.call("promote", c -> c.post("/api/v1/switchovers", body.toString()), res -> {
                JsonNode sw = res.json().path("switchover");
                String id = sw.path("id").asText();
                ctl.main.out().println("promotion " + id + " started: " + String.join(", ", units) + " -> " + to);
                sw.path("rpo_ms").properties().forEach(e -> ctl.main.out().printf("  RPO %-12s %s%n",
                        e.getKey(), e.getValue().asLong() < 0 ? "unknown (never measured)"
                                                              : "<= " + e.getValue().asLong() + " ms of writes"));
                return ctl.follow("promote", id);
            });
        }
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
            String body = JSON.createObjectNode().put("reason", reason.text).toString();
            return ctl.call("accept", c -> c.post("/api/v1/proposals/" + id + "/accept", body), res -> {
                JsonNode sw = res.json().path("switchover");
                ctl.main.out().println("proposal " + id + " accepted: " + (sw.has("rpo_ms") ? "promotion "
                                       : "switchover ") + sw.path("id").asText() + " started");
                sw.path("rpo_ms").properties().forEach(e -> ctl.main.out().printf("  RPO %-12s %s%n",
                        e.getKey(), e.getValue().asLong() < 0 ? "unknown (never measured)"
                                                              : "<= " + e.getValue().asLong() + " ms of writes"));
                return ctl.follow("accept", sw.path("id").asText());
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
            return ctl.call("abort", c -> c.post("/api/v1/switchovers/" + id + "/abort",
                                                 JSON.createObjectNode().put("reason", reason.text).toString()), res -> {
                ctl.main.out().println("switchover " + id + ": " + res.json().path("outcome").asText());
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
            return ctl.call("audit", c -> c.get("/api/v1/audit?after=" + after + "&limit=" + limit), res -> {
                res.json().path("entries").forEach(e -> ctl.main.out().printf("%6d %s %-8s %-18s %-24s %-16s %s%s%n",
                        e.path("seq").asLong(), e.path("at").asText(), e.path("actor").asText(),
                        e.path("action").asText(), e.path("target").asText(), e.path("outcome").asText(),
                        e.path("detail").asText(), e.path("reason").asText().isEmpty() ? ""
                                                   : " (reason: " + e.path("reason").asText() + ")"));
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
            return ctl.call("reset-health", c -> c.send("DELETE", "/api/v1/health/" + region, null,
                                                        Map.of("X-Unitas-Reason", reason.text)), res -> {
                ctl.main.out().println("health of " + region + " reset: revision "
                                       + res.json().path("revision").asLong());
                return 0;
            });
        }
    }
}
