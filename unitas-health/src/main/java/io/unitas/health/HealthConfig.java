package io.unitas.health;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import io.unitas.config.internal.ConfigDocument;
import io.unitas.config.ConfigException;
import io.unitas.core.Region;
import io.unitas.core.health.Thresholds;

/**
 * A health agent's configuration, as {@code health.yaml} writes it: the region, where to listen, and its checks.
 *
 * @param region   the region whose health the checks decide
 * @param address  the address the HTTP and gRPC servers bind
 * @param httpPort the port of {@code /livez}, {@code /readyz}, {@code /healthz} and {@code /metrics} (0: any free)
 * @param grpcPort the port of {@code grpc.health.v1.Health} (0: any free)
 * @param checks   the checks, in order
 * @param push     where to push every change, if anywhere
 */
public record HealthConfig(Region region, String address, int httpPort, int grpcPort, List<CheckConfig> checks,
                           Optional<PushConfig> push) {

    /** The default probe interval: with the default timeout and fall, a failure is seen within 3 s. */
    public static final Duration DEFAULT_INTERVAL = Duration.ofMillis(500);
    /** The default probe timeout. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(1);
    /** The default thresholds: fall 2, rise 2. */
    public static final Thresholds DEFAULT_THRESHOLDS = Thresholds.DEFAULT;

    /** Requires every part and freezes {@code checks}. */
    public HealthConfig {
        Objects.requireNonNull(region, "region");
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(push, "push");
        checks = List.copyOf(checks);
    }

    /**
     * Reads {@code file} ({@code .json} is JSON, anything else YAML), or throws {@link ConfigException} listing
     * every problem as {@code file:line: path: message}.
     */
    public static HealthConfig read(Path file) {
        return new HealthConfigReader(ConfigDocument.read(file)).read();
    }

    /** Parses {@code text}, naming it {@code name} in errors. */
    public static HealthConfig parse(String name, String text) {
        return new HealthConfigReader(ConfigDocument.parse(name, text)).read();
    }

    /** The check named {@code name}, if any. */
    public Optional<CheckConfig> check(String name) {
        return checks.stream().filter(c -> c.name().equals(name)).findFirst();
    }
}
