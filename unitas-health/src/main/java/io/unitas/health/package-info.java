/**
 * Deep health for one region: probes that ask databases, caches and services whether they can do their job
 * right now ({@link io.unitas.health.Probe}), the agent that runs them on schedule and rolls them up
 * ({@link io.unitas.health.HealthAgent}), and the server that publishes the result as {@code /livez},
 * {@code /readyz}, {@code /healthz}, Prometheus {@code /metrics}, {@code grpc.health.v1.Health} and a push to
 * the control plane ({@link io.unitas.health.HealthServer}).
 */
package io.unitas.health;
