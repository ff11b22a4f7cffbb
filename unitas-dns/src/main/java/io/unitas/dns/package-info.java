/**
 * {@code unitas dns}: an authoritative DNS server for one zone whose A, AAAA and SRV answers follow the same route
 * decision as the gateway ({@link io.unitas.core.Router}, the client's region as home), with a TTL that shrinks as
 * the serving region's health score falls ({@link io.unitas.core.health.DynamicTtl}). Start one with
 * {@link io.unitas.dns.DnsServer#start(io.unitas.dns.DnsConfig)}.
 */
package io.unitas.dns;
