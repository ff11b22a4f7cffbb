/**
 * Client-side endpoint choice as pure values and functions: the health state machine of one endpoint
 * (healthy, degraded, unhealthy, evicted), the latency weight of seed 003 over a sliding window of RTT samples,
 * the RFC 2782 SRV selection with weights, and the CRC32 pick that keeps one key on one address. Time and
 * randomness are handed in; picking allocates nothing.
 */
package io.unitas.core.endpoint;
