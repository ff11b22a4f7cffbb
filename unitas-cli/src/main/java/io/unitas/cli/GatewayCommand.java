package io.unitas.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;

import io.unitas.config.ConfigException;
import io.unitas.gateway.Gateway;
import io.unitas.gateway.GatewayConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code unitas gateway --config gateway.yaml}: runs the unit-aware HTTP gateway until stopped. */
@Command(name = "gateway",
         description = "Run the unit-aware HTTP gateway: send each request to the region that holds its user's data.")
final class GatewayCommand implements Callable<Integer> {

    @Option(names = "--config", required = true, description = "The gateway's configuration (YAML or JSON).")
    Path config;

    @Override
    public Integer call() throws InterruptedException {
        Gateway gateway;
        try {
            gateway = Gateway.start(GatewayConfig.read(config));
        } catch (ConfigException e) {
            System.err.println(e.getMessage());
            return Main.EXIT_USAGE;
        } catch (RuntimeException e) {
            System.err.println("gateway: cannot start: " + e.getMessage());
            return Main.EXIT_USAGE;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(gateway::close, "unitas-gateway-shutdown"));
        System.err.println("gateway: listening on port " + gateway.port() + " with routing state revision "
                           + gateway.revision());
        gateway.awaitClose();
        return 0;
    }
}
