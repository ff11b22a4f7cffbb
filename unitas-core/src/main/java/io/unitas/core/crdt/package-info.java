/**
 * Conflict-free replicated data types for data written in more than one region: {@link
 * io.unitas.core.crdt.VersionVector}, the add-wins observed-remove set {@link io.unitas.core.crdt.OrSet} and the
 * {@link io.unitas.core.crdt.Cart} built on it. Every type is an immutable value; {@code merge} is commutative,
 * associative and idempotent, so replicas converge whatever order their states are exchanged in.
 */
package io.unitas.core.crdt;
