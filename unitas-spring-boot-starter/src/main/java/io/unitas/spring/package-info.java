/**
 * The Spring Boot starter: {@link io.unitas.spring.UnitasAutoConfiguration} makes a service unit-aware from
 * {@code application.yaml} alone ({@link io.unitas.spring.UnitasProperties}); the routing state comes from static
 * files or an application's own {@link io.unitas.spring.UnitasRoutingState}. Everything else here is package-private.
 */
package io.unitas.spring;
