package io.unitas.resolver;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * How the resolver checks that an endpoint answers (seed 003, 2.4 and 3.3): the returned stage completes normally
 * when it does and exceptionally when it does not. The resolver times it with its own ticker for the endpoint's
 * RTT. Implementations must not block the caller.
 */
@FunctionalInterface
public interface EndpointProbe extends AutoCloseable {

    /** Starts one probe of {@code address}. */
    CompletableFuture<?> probe(InetSocketAddress address);

    /** Releases what the probe holds (connections, channels). */
    @Override
    default void close() {}

    /** A TCP connect, closed at once; fails after {@code timeout}. */
    static EndpointProbe tcp(Duration timeout) {
        return new Probes.Tcp(timeout);
    }

    /** An HTTP GET of {@code path}; a 2xx or 3xx status is a success. */
    static EndpointProbe http(String path, Duration timeout) {
        return new Probes.Http(path, timeout);
    }

    /**
     * A gRPC health v1 {@code Check} of {@code service} ("" for the server as a whole) over plaintext; SERVING is a
     * success. Needs grpc-services and grpc-netty-shaded on the class path.
     */
    static EndpointProbe grpcHealth(String service, Duration timeout) {
        return new GrpcHealthProbe(service, timeout);
    }
}
