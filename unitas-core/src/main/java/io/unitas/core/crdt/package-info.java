/**
 * Merge policies for data written in more than one region, as conflict-free replicated data types: {@link
 * io.unitas.core.crdt.VersionVector} to tell causal order from concurrency, and the states a {@link
 * io.unitas.core.crdt.MergePolicy} merges: the last-writer-wins {@link io.unitas.core.crdt.LwwRegister}, the
 * {@link io.unitas.core.crdt.PnCounter}, the add-wins observed-remove {@link io.unitas.core.crdt.OrSet} and {@link
 * io.unitas.core.crdt.OrMap}, and {@link io.unitas.core.crdt.Siblings}, which keeps what cannot be merged. Every
 * type is an immutable value; {@code merge} is commutative, associative and idempotent, so replicas converge
 * whatever order their states are exchanged in.
 */
package io.unitas.core.crdt;
