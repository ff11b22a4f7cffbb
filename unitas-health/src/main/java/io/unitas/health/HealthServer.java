package io.unitas.health;

import java.time.Clock;

/**
 * Serves one region's health in every form the ecosystem reads: {@code /livez} (the process),
 * {@code /readyz} (deep: 503 with the reasons when the region cannot serve), {@code /healthz} (the JSON report,
 * 503 when unhealthy), {@code /metrics} (Prometheus), {@code grpc.health.v1.Health} ({@code ""} is the region,
 * each check is a service) and, when configured, a push of every change to the control plane.
 */
public interface HealthServer extends AutoCloseable {

    /** Starts the agent for {@code config} and serves it; ports 0 are bound to free ones. */
    static HealthServer start(HealthConfig config, Clock clock) {
        return DefaultHealthServer.start(config, clock, UnitLagSource.NONE);
    }

    /**
     * Starts the agent for {@code config} and serves it, every report carrying the per-unit replication lag that
     * {@code unitLags} measures (the region's data shipper).
     */
    static HealthServer start(HealthConfig config, Clock clock, UnitLagSource unitLags) {
        return DefaultHealthServer.start(config, clock, unitLags);
    }

    /** The agent whose health is served. */
    HealthAgent agent();

    /** The bound port of the HTTP endpoints. */
    int httpPort();

    /** The bound port of the gRPC health service. */
    int grpcPort();

    /** Stops serving, pushing and probing. */
    @Override
    void close();
}
