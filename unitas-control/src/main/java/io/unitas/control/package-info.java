/**
 * The control plane: one versioned source of truth for topology, unit rules, write fences, region health and
 * switchovers, kept in an embedded log or in etcd, served over HTTP under {@code /api/v1} with a watch stream of
 * whole-state snapshots, a console at {@code /}, bearer tokens with roles, and an audit log. Start one with
 * {@link io.unitas.control.ControlServer#builder()}; talk to one with
 * {@code io.unitas.control.client.ControlClient} (module {@code unitas-control-client}). The decisions it runs (switchover phases and
 * plans) are pure values in {@code io.unitas.core.switchover}.
 */
package io.unitas.control;
