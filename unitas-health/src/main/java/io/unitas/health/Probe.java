package io.unitas.health;

import java.time.Duration;

import io.unitas.core.health.ProbeResult;

/**
 * Asks one target whether it can do its job right now. A probe never throws for anything the target does: a
 * refused connection, a wrong password, a timeout or a read-only database are each a down {@link ProbeResult}
 * with a reason a person can read.
 */
@FunctionalInterface
public interface Probe extends AutoCloseable {

    /** Probes the target once, giving up after {@code timeout}. */
    ProbeResult probe(Duration timeout);

    /** Releases what the probe holds between runs; nothing by default. */
    @Override
    default void close() {}

    /**
     * The probe {@code config} describes. Throws {@link IllegalArgumentException} when its target cannot be
     * understood ({@code target: 'localhost' (expected: postgresql://[user[:password]@]host[:port][/database])}).
     * Connects to nothing until probed.
     */
    static Probe of(ProbeConfig config) {
        return switch (config.kind()) {
            case POSTGRES -> new PostgresProbe(config);
            case MYSQL -> new MysqlProbe(config);
            case REDIS -> new RedisProbe(config);
            case HTTP -> new HttpProbe(config);
            case TCP -> new TcpProbe(config);
            case GRPC -> new GrpcProbe(config);
        };
    }
}
