package io.unitas.resolver;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import com.google.common.util.concurrent.FutureCallback;
import com.google.common.util.concurrent.Futures;
import com.google.common.util.concurrent.MoreExecutors;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;

/** gRPC health v1 {@code Check}, one channel per endpoint kept between probes. */
final class GrpcHealthProbe implements EndpointProbe {

    private final String service;
    private final Duration timeout;
    private final Map<InetSocketAddress, ManagedChannel> channels = new ConcurrentHashMap<>();

    GrpcHealthProbe(String service, Duration timeout) {
        this.service = service;
        this.timeout = timeout;
    }

    @Override
    public CompletableFuture<?> probe(InetSocketAddress address) {
        ManagedChannel ch = channels.computeIfAbsent(address, a ->
                ManagedChannelBuilder.forAddress(a.getAddress().getHostAddress(), a.getPort()).usePlaintext().build());
        CompletableFuture<HealthCheckResponse> done = new CompletableFuture<>();
        Futures.addCallback(HealthGrpc.newFutureStub(ch).withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS)
                .check(HealthCheckRequest.newBuilder().setService(service).build()),
                new FutureCallback<>() {
                    @Override
                    public void onSuccess(HealthCheckResponse r) {
                        if (r.getStatus() == HealthCheckResponse.ServingStatus.SERVING) {
                            done.complete(r);
                        } else {
                            done.completeExceptionally(new IllegalStateException("health: " + r.getStatus()));
                        }
                    }

                    @Override
                    public void onFailure(Throwable t) {
                        done.completeExceptionally(t);
                    }
                }, MoreExecutors.directExecutor());
        return done;
    }

    @Override
    public void close() {
        channels.values().forEach(ManagedChannel::shutdownNow);
        channels.clear();
    }
}
