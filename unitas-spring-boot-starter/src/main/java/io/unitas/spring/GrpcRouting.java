package io.unitas.spring;

import java.util.function.Function;

import io.grpc.ServerInterceptor;
import io.unitas.client.RoutingContext;
import io.unitas.client.grpc.RoutingGrpc;
import io.unitas.core.rules.RequestView;

/**
 * The routing context over grpc-java in a Spring service: the server interceptor reads a call's metadata as the
 * Servlet and WebFlux filters read a request's headers (the gateway's stamp, then the routing key by the unit rules),
 * so a call that bypassed the gateway still has a unit.
 */
final class GrpcRouting {

    private GrpcRouting() {}

    static ServerInterceptor serverInterceptor(InboundContext inbound) {
        return RoutingGrpc.serverInterceptor(
                header -> inbound.read(new MetadataView(header), inbound.state().current()));
    }

    /** The unit rules' view of a call's metadata: headers only (gRPC has no cookies, query or host of its own). */
    private record MetadataView(Function<String, String> header) implements RequestView {
        @Override
        public String header(String name) {
            return header.apply(name);
        }

        @Override
        public String cookie(String name) {
            return null;
        }

        @Override
        public String query(String name) {
            return null;
        }

        @Override
        public String host() {
            return null;
        }
    }
}
