/**
 * What a Java client uses instead of {@code InetAddress}: {@link io.unitas.resolver.UnitasResolver} resolves SRV
 * (RFC 2782 priority and weight) and A/AAAA records honouring their TTLs, probes the endpoints it found and weighs
 * them by latency, and switches to a local {@link io.unitas.resolver.FallbackPool} when DNS is slow or failing.
 * The decisions (endpoint states, weights, picks) are {@code io.unitas.core.endpoint}'s; this package does the I/O.
 */
package io.unitas.resolver;
