/**
 * Merge by declared policy: entities written in more than one region ({@link io.unitas.data.merge.MergedEntity}) whose
 * changes carry their replicated state and are merged on arrival by the entity's {@code io.unitas.core.crdt} policy
 * ({@link io.unitas.data.merge.MergeStore}); what a policy keeps side by side listed as siblings until resolved on
 * record; and reconciliation by digests of each unit's copy against its home's
 * ({@link io.unitas.data.merge.DigestReconciler}).
 */
package io.unitas.data.merge;
