package io.unitas.cli;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.unitas.config.internal.DurationFormat;
import io.unitas.config.HealthReportJson;
import io.unitas.core.health.CheckReport;
import io.unitas.core.health.ProbeResult;
import io.unitas.health.Probe;
import io.unitas.health.ProbeConfig;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code unitas probe}: one probe, once, as JSON, for scripts and for a person at a terminal. */
@Command(name = "probe",
         description = "Probe one target once and print the result as JSON: "
                       + "{\"healthy\": bool, \"checks\": {...}, \"reasons\": [...]}.",
         exitCodeListHeading = "%nExit codes:%n",
         exitCodeList = {"0:healthy", "1:unhealthy (refused, timed out, wrong password, read-only, lagging...)",
                         "2:bad arguments"},
         mixinStandardHelpOptions = true)
final class ProbeCommand implements Callable<Integer> {

    /** The target did not meet its expectations. */
    static final int EXIT_UNHEALTHY = 1;

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    @ParentCommand
    Main main;

    @Parameters(index = "0", paramLabel = "KIND", description = "postgres, mysql, redis, http, tcp or grpc")
    String kind;

    @Parameters(index = "1", paramLabel = "TARGET",
                description = "postgresql://user@host:5432/db?sslmode=require (or jdbc:postgresql://...?user=...), "
                              + "mysql://user:pw@host:3306/db, redis://user:pw@host:6379/0 (rediss:// for TLS), "
                              + "http://host:8080/health, host:port (tcp, grpc); a parameter that cannot be "
                              + "passed on is refused, naming it")
    String target;

    @Option(names = "--timeout", defaultValue = "2s", converter = DurationConverter.class, paramLabel = "DURATION",
            description = "give up after this long (default: ${DEFAULT-VALUE})")
    Duration timeout;

    @Option(names = "--max-lag", defaultValue = "0s", converter = DurationConverter.class, paramLabel = "DURATION",
            description = "a standby lagging more than this is unhealthy (postgres, mysql, redis; default: no limit)")
    Duration maxLag;

    @Option(names = "--role", defaultValue = "any", paramLabel = "ROLE",
            description = "primary, standby or any (postgres, mysql, redis; default: ${DEFAULT-VALUE})")
    String role;

    @Option(names = "--heartbeat", description = "postgres primary: write the heartbeat row (a canary write)")
    boolean heartbeat;

    @Option(names = "--status", defaultValue = ProbeConfig.DEFAULT_STATUS, paramLabel = "CODES",
            description = "http: accepted status codes (default: ${DEFAULT-VALUE})")
    String status;

    @Option(names = "--body-contains", defaultValue = "", paramLabel = "TEXT",
            description = "http: the first 5120 bytes of the body must contain TEXT")
    String bodyContains;

    @Option(names = "--service", defaultValue = "", paramLabel = "NAME",
            description = "grpc: the service to check (default: the whole server)")
    String service;

    @Override
    public Integer call() throws Exception {
        Optional<ProbeConfig.Kind> k = ProbeConfig.Kind.of(kind);
        Optional<ProbeConfig.Role> r = ProbeConfig.Role.of(role);
        if (k.isEmpty()) {
            return usage("kind: '" + kind + "' (expected one of: " + ProbeConfig.Kind.ids() + ")");
        }
        if (r.isEmpty()) {
            return usage("--role: '" + role + "' (expected: primary, standby or any)");
        }
        ProbeConfig config = new ProbeConfig(k.get(), target, r.get(), maxLag, heartbeat, status, bodyContains,
                                             service);
        ProbeResult result;
        try (Probe probe = Probe.of(config)) {
            result = probe.probe(timeout);
        } catch (IllegalArgumentException e) {
            return usage(e.getMessage());
        }
        CheckReport report = new CheckReport(result.up(), result.latency().toMillis(),
                                             result.up() ? "" : result.reason(), result.replicationLagMs(),
                                             result.details());
        ObjectNode out = JSON.createObjectNode();
        out.put("healthy", result.up());
        out.putObject("checks").set(kind, HealthReportJson.checkTree(report));
        out.putArray("reasons").addAll(result.up() ? java.util.List.of()
                : java.util.List.of(JSON.getNodeFactory().textNode(kind + ": " + result.reason())));
        main.out().println(JSON.writeValueAsString(out));
        return result.up() ? 0 : EXIT_UNHEALTHY;
    }

    private int usage(String problem) {
        main.err().println("unitas probe: " + problem);
        return Main.EXIT_USAGE;
    }

    /** Reads {@code 500ms}, {@code 5s}, {@code 2m}: the one duration format of files and commands. */
    static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            try {
                return DurationFormat.parse(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }
}
