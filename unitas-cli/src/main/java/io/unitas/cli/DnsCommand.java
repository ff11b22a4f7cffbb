package io.unitas.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;

import io.unitas.config.ConfigException;
import io.unitas.dns.DnsConfig;
import io.unitas.dns.DnsServer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code unitas dns --config dns.yaml}: runs the authoritative DNS server until stopped. Exit codes: 2 for an
 * invalid configuration or state file (one line per problem), 1 when it cannot start (e.g. the port is taken).
 */
@Command(name = "dns",
         mixinStandardHelpOptions = true,
         description = "Run the authoritative DNS server: answer each client with the region the gateway's route "
                       + "decision picks for it, with a TTL that shrinks as that region's health falls.")
final class DnsCommand implements Callable<Integer> {

    /** The server could not start for a reason other than its input. */
    static final int EXIT_CANNOT_START = 1;

    @ParentCommand
    Main main;

    @Option(names = "--config", required = true, description = "The server's configuration (YAML or JSON).")
    Path config;

    @Override
    public Integer call() throws InterruptedException {
        DnsConfig parsed = DnsConfig.read(config);
        DnsServer server;
        try {
            server = DnsServer.start(parsed);
        } catch (ConfigException e) {
            throw e;
        } catch (RuntimeException e) {
            main.err().println("dns: cannot start: " + e.getMessage());
            return EXIT_CANNOT_START;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(server::close, "unitas-dns-shutdown"));
        main.err().println("dns: zone " + parsed.zone() + " on port " + server.port() + " (udp and tcp)"
                           + (server.metricsPort() < 0 ? "" : ", /metrics on port " + server.metricsPort())
                           + ", routing state revision " + server.revision());
        server.awaitClose();
        return 0;
    }
}
