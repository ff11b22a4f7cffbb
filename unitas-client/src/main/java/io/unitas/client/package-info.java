/**
 * The framework-neutral service SDK: a request's {@link io.unitas.client.RoutingContext} read from the gateway's
 * stamp and written on every call ({@link io.unitas.client.RoutingHeaders}), kept per thread and carried across
 * thread hand-offs ({@link io.unitas.client.RoutingContextHolder}, {@link io.unitas.client.RoutingContextAccessor}),
 * unit-aware instance selection ({@link io.unitas.client.InstanceSelector}) and the routing state a service decides
 * over ({@link io.unitas.client.RoutingSnapshot}), all on the core's decisions. Framework integrations (the Spring
 * Boot starter) sit on top.
 */
package io.unitas.client;
