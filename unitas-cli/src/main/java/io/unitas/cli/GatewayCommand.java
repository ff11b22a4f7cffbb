package io.unitas.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;

import io.unitas.config.ConfigException;
import io.unitas.gateway.Gateway;
import io.unitas.gateway.GatewayConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code unitas gateway --config gateway.yaml}: runs the unit-aware HTTP gateway until stopped. Exit codes: 2 for
 * an invalid configuration or state file (one line per problem), 1 when it cannot start (e.g. the port is taken).
 */
@Command(name = "gateway",
         mixinStandardHelpOptions = true,
         description = "Run the unit-aware HTTP gateway: send each request to the region that holds its user's data.")
final class GatewayCommand implements Callable<Integer> {

    /** The gateway could not start for a reason other than its input. */
    static final int EXIT_CANNOT_START = 1;

    @ParentCommand
    Main main;

    @Option(names = "--config", required = true, description = "The gateway's configuration (YAML or JSON).")
    Path config;

    @Override
    public Integer call() throws InterruptedException {
        GatewayConfig parsed = GatewayConfig.read(config);
        Gateway gateway;
        try {
            gateway = Gateway.start(parsed);
        } catch (ConfigException e) {
            throw e;
        } catch (RuntimeException e) {
            main.err().println("gateway: cannot start: " + e.getMessage());
            return EXIT_CANNOT_START;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(gateway::close, "unitas-gateway-shutdown"));
        main.err().println("gateway: region " + parsed.region() + " listening on port " + gateway.port()
                           + " (" + gateway.transport() + ", " + gateway.timeSlices() + "), routing state revision " + gateway.revision());
        gateway.awaitClose();
        return 0;
    }
}
