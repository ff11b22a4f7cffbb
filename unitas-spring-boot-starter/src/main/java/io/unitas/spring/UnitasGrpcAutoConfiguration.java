package io.unitas.spring;

import java.time.Clock;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * grpc-java: the server interceptor reads each call's context from its metadata (stamp, then routing key) and
 * keeps it current in the call's callbacks; the client interceptor writes the current context on every call.
 * The application applies them where it builds its server and channels (or its gRPC integration picks up
 * {@code ServerInterceptor} and {@code ClientInterceptor} beans).
 */
@AutoConfiguration(after = UnitasAutoConfiguration.class)
@ConditionalOnBean(UnitasProperties.class)
@ConditionalOnClass(name = {"io.grpc.ServerInterceptor", "io.grpc.ClientInterceptor"})
public class UnitasGrpcAutoConfiguration {
    @Bean
    @ConditionalOnMissingBean(name = "unitasGrpcServerInterceptor")
    io.grpc.ServerInterceptor unitasGrpcServerInterceptor(UnitasProperties properties, UnitasRoutingState state,
                                                          ObjectProvider<Clock> clock) {
        return GrpcRouting.serverInterceptor(UnitasAutoConfiguration.inbound(properties, state, clock));
    }

    @Bean
    @ConditionalOnMissingBean(name = "unitasGrpcClientInterceptor")
    io.grpc.ClientInterceptor unitasGrpcClientInterceptor(UnitasProperties properties) {
        return io.unitas.client.grpc.RoutingGrpc.clientInterceptor(properties.routingHeaders());
    }

    /** The standard gRPC health service, answered from the routing state (grpc-services on the class path). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.grpc.health.v1.HealthGrpc")
    static class Health {
        @Bean
        @ConditionalOnMissingBean
        UnitasGrpcHealth unitasGrpcHealth(UnitasProperties properties, UnitasRoutingState state) {
            return new UnitasGrpcHealth(state, properties.getRegion());
        }
    }
}
