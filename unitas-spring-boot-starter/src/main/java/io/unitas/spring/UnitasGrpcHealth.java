package io.unitas.spring;

import io.grpc.Status;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.stub.StreamObserver;
import io.unitas.core.Region;

/**
 * The standard gRPC health service ({@code grpc.health.v1.Health/Check}) answered from the routing state the service
 * follows: {@code SERVING} while this instance's region is healthy there, {@code NOT_SERVING} while the control plane
 * (or the health file) has it down, so a load balancer or Kubernetes gRPC probe stops sending it work exactly when
 * the gateways do. The overall service ({@code ""}) and {@code "unitas"} are known; any other name is
 * {@code NOT_FOUND}. Each check reads the current state: nothing runs in the background. {@code Watch} is not offered
 * (gRPC's {@code UNIMPLEMENTED}): probes poll {@code Check}.
 */
public final class UnitasGrpcHealth extends HealthGrpc.HealthImplBase {

    /** The service name this health service answers for besides the overall one. */
    public static final String SERVICE = "unitas";

    private final UnitasRoutingState state;
    private final Region region;

    UnitasGrpcHealth(UnitasRoutingState state, String region) {
        this.state = state;
        this.region = Region.of(region);
    }

    @Override
    public void check(HealthCheckRequest request, StreamObserver<HealthCheckResponse> response) {
        String service = request.getService();
        if (!service.isEmpty() && !SERVICE.equals(service)) {
            response.onError(Status.NOT_FOUND.withDescription("service '" + service
                    + "' (expected: '' or '" + SERVICE + "')").asRuntimeException());
            return;
        }
        boolean healthy = state.current().health().isHealthy(region);
        response.onNext(HealthCheckResponse.newBuilder()
                .setStatus(healthy ? HealthCheckResponse.ServingStatus.SERVING
                                   : HealthCheckResponse.ServingStatus.NOT_SERVING)
                .build());
        response.onCompleted();
    }
}
