/**
 * The Spring Boot starter: {@link io.unitas.spring.UnitasAutoConfiguration} makes a service unit-aware from
 * {@code application.yaml} alone ({@link io.unitas.spring.UnitasProperties}); the routing state comes from static
 * files or an application's own {@link io.unitas.spring.UnitasRoutingState}. Applications use {@link
 * io.unitas.spring.Idempotent}, {@link io.unitas.spring.UnitasReadiness} (and the {@link
 * io.unitas.spring.DataNotReadyException} it throws) and the gRPC health service {@link
 * io.unitas.spring.UnitasGrpcHealth}. Everything else here is package-private.
 */
package io.unitas.spring;
