/**
 * grpc-java adapters: {@link io.unitas.resolver.grpc.UnitasNameResolverProvider} resolves {@code unitas:///} targets
 * through a {@link io.unitas.resolver.UnitasResolver}, and the {@code unitas_weighted} load-balancing policy it
 * selects picks among the connected endpoints by SRV priority, health and weight, as the resolver's own picks do.
 */
package io.unitas.resolver.grpc;
