package io.unitas.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code unitas sagas list|retry|resolve --service URL}: the stuck sagas of a service on the Spring Boot starter (a
 * compensation, or a step after the pivot, that kept failing), over its {@code /actuator/sagas}, and an operator's
 * retry or resolution, recorded by the service with who and why. Exit codes: 0 done, 1 the service cannot be reached
 * or answered an error of its own, 2 bad input, 3 the service refused (no such saga, not stuck, a bad action).
 */
@Command(name = "sagas",
         description = "List a service's stuck sagas over its /actuator/sagas, and retry or resolve one on record.",
         mixinStandardHelpOptions = true,
         subcommands = {SagasCommand.ListStuck.class, SagasCommand.Retry.class, SagasCommand.Resolve.class})
final class SagasCommand implements Runnable {

    /** The service cannot be reached, or answered with a server error. */
    static final int EXIT_SERVICE = 1;
    /** The service refused: no such saga, not stuck, or a bad action. */
    static final int EXIT_REFUSED = 3;

    private static final ObjectMapper JSON = new ObjectMapper();

    @ParentCommand
    Main main;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(main.out());
    }

    /** What every subcommand shares: the service and one HTTP exchange with its actuator. */
    abstract static class WithService implements Callable<Integer> {
        @ParentCommand
        SagasCommand parent;

        @Option(names = "--service", required = true, paramLabel = "URL",
                description = "the service's management base, as http://host:port (its /actuator/sagas is used)")
        String service;

        @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "PT10S",
                description = "how long to wait for the service (ISO-8601, default ${DEFAULT-VALUE})")
        Duration timeout;

        @Override
        public final Integer call() {
            PrintStream err = parent.main.err();
            URI base;
            try {
                base = URI.create(service.endsWith("/") ? service : service + "/");
                if (!("http".equals(base.getScheme()) || "https".equals(base.getScheme())) || base.getHost() == null) {
                    throw new IllegalArgumentException("not http(s) with a host");
                }
            } catch (IllegalArgumentException e) {
                err.println("--service: '" + service + "' (expected: http://host:port or https://host:port)");
                return Main.EXIT_USAGE;
            }
            if (timeout.isZero() || timeout.isNegative()) {
                err.println("--timeout: " + timeout + " (expected: > 0)");
                return Main.EXIT_USAGE;
            }
            String problem = checkInput();
            if (problem != null) {
                err.println(problem);
                return Main.EXIT_USAGE;
            }
            HttpClient http = HttpClient.newBuilder().connectTimeout(timeout).build();
            HttpRequest request;
            try {
                request = request(base).timeout(timeout).header("Accept", "application/json").build();
            } catch (IOException e) {
                err.println("unitas sagas: " + e.getMessage());
                return Main.EXIT_USAGE;
            }
            HttpResponse<String> response;
            try {
                response = http.send(request, HttpResponse.BodyHandlers.ofString());
            } catch (IOException e) {
                err.println(request.uri() + ": cannot reach the service: " + e
                            + " (expected: a service on the unitas starter with the sagas endpoint exposed)");
                return EXIT_SERVICE;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                err.println(request.uri() + ": interrupted");
                return EXIT_SERVICE;
            }
            JsonNode body;
            try {
                body = response.body().isBlank() ? JSON.nullNode() : JSON.readTree(response.body());
            } catch (IOException e) {
                err.println(request.uri() + ": HTTP " + response.statusCode() + ", not JSON (expected: the"
                            + " actuator's sagas endpoint; is it exposed? management.endpoints.web.exposure.include)");
                return EXIT_SERVICE;
            }
            int status = response.statusCode();
            if (status >= 200 && status < 300) {
                return done(body, parent.main.out());
            }
            String error = body.path("error").asText("");
            err.println(request.uri() + ": HTTP " + status + (error.isEmpty() ? "" : ": " + error));
            return status >= 500 || status == 404 && error.isEmpty() ? EXIT_SERVICE : EXIT_REFUSED;
        }

        /** A problem with the subcommand's own arguments, or null. */
        String checkInput() {
            return null;
        }

        abstract HttpRequest.Builder request(URI base) throws IOException;

        abstract int done(JsonNode body, PrintStream out);
    }

    /** {@code unitas sagas list}. */
    @Command(name = "list", mixinStandardHelpOptions = true,
             description = "Print the stuck sagas, oldest change first: id, saga, state, step, attempts, last error.")
    static final class ListStuck extends WithService {
        @Override
        HttpRequest.Builder request(URI base) {
            return HttpRequest.newBuilder(base.resolve("actuator/sagas")).GET();
        }

        @Override
        int done(JsonNode body, PrintStream out) {
            out.println("id\tsaga\tstate\tstep\tattempts\tupdated_at\tlast_error");
            for (JsonNode s : body.path("stuck")) {
                out.println(s.path("id").asText() + "\t" + s.path("saga").asText() + "\t" + s.path("state").asText()
                            + (s.path("compensating").asBoolean() ? " (compensating)" : "") + "\t"
                            + s.path("step").asText() + "\t" + s.path("attempts").asText() + "\t"
                            + s.path("updated_at").asText() + "\t" + s.path("last_error").asText(""));
            }
            return 0;
        }
    }

    /** What retry and resolve share: one saga, and who acts and why. */
    abstract static class Action extends WithService {
        @Parameters(index = "0", paramLabel = "ID", description = "the saga's id, as 'list' prints it")
        String id;

        @Option(names = "--who", required = true, paramLabel = "NAME", description = "who acts (on record)")
        String who;

        @Option(names = "--why", required = true, paramLabel = "TEXT", description = "why (on record)")
        String why;

        @Override
        String checkInput() {
            if (id.isBlank() || who.isBlank() || why.isBlank()) {
                return "ID, --who and --why: '" + id + "', '" + who + "', '" + why + "' (expected: all given, an"
                       + " action is on record)";
            }
            return null;
        }

        abstract String action();

        @Override
        HttpRequest.Builder request(URI base) throws IOException {
            Map<String, String> body = new LinkedHashMap<>();
            body.put("action", action());
            body.put("who", who);
            body.put("why", why);
            return HttpRequest.newBuilder(base.resolve("actuator/sagas/"
                                                       + URLEncoder.encode(id, StandardCharsets.UTF_8)
                                                                   .replace("+", "%20")))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)));
        }

        @Override
        int done(JsonNode body, PrintStream out) {
            out.println(body.path("id").asText(id) + ": " + body.path("state").asText() + " (" + action() + " by "
                        + who + ", on record)");
            return 0;
        }
    }

    /** {@code unitas sagas retry}. */
    @Command(name = "retry", mixinStandardHelpOptions = true,
             description = "Run a stuck saga's failing step or compensation again, recorded with who and why.")
    static final class Retry extends Action {
        @Override
        String action() {
            return "retry";
        }
    }

    /** {@code unitas sagas resolve}. */
    @Command(name = "resolve", mixinStandardHelpOptions = true,
             description = "Mark a stuck saga completed or compensated after fixing it by hand, recorded with who "
                           + "and why.")
    static final class Resolve extends Action {
        /** What the saga is marked as. */
        enum Outcome { completed, compensated }

        @Option(names = "--as", required = true, paramLabel = "OUTCOME",
                description = "completed or compensated: what was done by hand")
        Outcome as;

        @Override
        String action() {
            return "resolve-" + as.name();
        }
    }
}
