package io.unitas.health;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;

import io.unitas.core.RegionHealth;
import io.unitas.core.health.ProbeResult;

/**
 * Probes a gRPC server with {@code grpc.health.v1.Health/Check} for one service ({@code ""}: the whole server),
 * on a fresh plaintext channel each time so that a server coming back is seen at once.
 */
final class GrpcProbe implements Probe {

    private final ProbeConfig config;
    private final Endpoint endpoint;

    GrpcProbe(ProbeConfig config) {
        this.config = config;
        this.endpoint = Endpoint.parseHostPort(config.target(), "grpc");
    }

    @Override
    public ProbeResult probe(Duration timeout) {
        long start = Latency.start();
        String service = config.service();
        Map<String, Object> seen = Map.of("service", service);
        ManagedChannel channel = NettyChannelBuilder.forAddress(endpoint.host(), endpoint.port()).usePlaintext()
                .build();
        try {
            HealthCheckResponse response = HealthGrpc.newBlockingStub(channel)
                    .withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS)
                    .check(HealthCheckRequest.newBuilder().setService(service).build());
            HealthCheckResponse.ServingStatus status = response.getStatus();
            Map<String, Object> withStatus = Map.of("service", service, "status", status.name());
            if (status != HealthCheckResponse.ServingStatus.SERVING) {
                return ProbeResult.down(Latency.since(start), "service '" + service + "' is " + status
                                        + " (expected: SERVING)", RegionHealth.UNKNOWN_LAG, withStatus);
            }
            return ProbeResult.up(Latency.since(start), "SERVING", RegionHealth.UNKNOWN_LAG, withStatus);
        } catch (StatusRuntimeException e) {
            Status.Code code = e.getStatus().getCode();
            String reason = switch (code) {
                case NOT_FOUND -> "service '" + service + "' unknown to the server (NOT_FOUND)";
                case UNIMPLEMENTED -> "the server does not implement grpc.health.v1.Health (UNIMPLEMENTED)";
                case DEADLINE_EXCEEDED -> "timed out after " + timeout.toMillis() + "ms talking to "
                                          + endpoint.address();
                case UNAVAILABLE -> ProbeFailure.reason(e, endpoint.address(), timeout).startsWith("cannot")
                        ? ProbeFailure.reason(e, endpoint.address(), timeout)
                        : "cannot reach " + endpoint.address() + " (UNAVAILABLE: " + e.getStatus().getDescription()
                          + ")";
                default -> code + ": " + e.getStatus().getDescription();
            };
            return ProbeResult.down(Latency.since(start), reason, RegionHealth.UNKNOWN_LAG, seen);
        } finally {
            channel.shutdownNow();
        }
    }
}
