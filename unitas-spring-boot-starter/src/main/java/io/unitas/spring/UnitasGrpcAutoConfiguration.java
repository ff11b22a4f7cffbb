package io.unitas.spring;

import java.time.Clock;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * grpc-java: the server interceptor reads each call's context from its metadata (stamp, then routing key), keeps it
 * current in the call's callbacks and refuses a write (a method that is not safe) of a unit this region does not take
 * ({@link GrpcWriteGuard}, {@code unitas.write-guard.*}), or in {@code forward} mode relays it to the region that
 * does ({@link GrpcWriteForwarder}); the client interceptor writes the current context on every call.
 * The application applies them where it builds its server and channels (or its gRPC integration picks up
 * {@code ServerInterceptor} and {@code ClientInterceptor} beans).
 */
@AutoConfiguration(after = UnitasAutoConfiguration.class)
@ConditionalOnBean(UnitasProperties.class)
@ConditionalOnClass(name = {"io.grpc.ServerInterceptor", "io.grpc.ClientInterceptor"})
@EnableConfigurationProperties(WriteGuardProperties.class)
public class UnitasGrpcAutoConfiguration {
    @Bean
    @ConditionalOnMissingBean(name = "unitasGrpcServerInterceptor")
    io.grpc.ServerInterceptor unitasGrpcServerInterceptor(UnitasProperties properties, UnitasRoutingState state,
                                                          WriteGuardProperties writeGuard,
                                                          ObjectProvider<WriteGuardDecision> guard,
                                                          ObjectProvider<GrpcWriteForwarder> forwarder,
                                                          ObjectProvider<Clock> clock) {
        io.grpc.ServerInterceptor routing =
                GrpcRouting.serverInterceptor(UnitasAutoConfiguration.inbound(properties, state, clock));
        // the web guard's decision when there is one; a service without a web server builds its own, alike
        WriteGuardDecision decision = guard.getIfAvailable(() -> WriteGuardDecision.of(
                properties.getRegion(), writeGuard, clock.getIfAvailable(Clock::systemUTC)));
        return GrpcWriteGuard.inside(routing, new GrpcWriteGuard(decision, state, forwarder.getIfAvailable()));
    }

    /** In {@code forward} mode only: a channel to each region's gRPC target, checked at start, closed with the context. */
    @Bean(destroyMethod = "close")
    @ConditionalOnProperty(prefix = "unitas.write-guard", name = "mode", havingValue = "forward")
    GrpcWriteForwarder unitasGrpcWriteForwarder(UnitasProperties properties, WriteGuardProperties settings,
                                                UnitasRoutingState state) {
        return GrpcWriteForwarder.of(properties.getRegion(), settings.getForward(),
                                     state.current().rules().topology(), properties.routingHeaders());
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
