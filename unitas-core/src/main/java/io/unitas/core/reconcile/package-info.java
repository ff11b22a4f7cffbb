/**
 * Reconciliation by digests (对账), the pure part: a copy of a unit's data is cut into key ranges, each summarised by
 * a {@link io.unitas.core.reconcile.RangeDigest}; {@link io.unitas.core.reconcile.RangeDiff} names the ranges where a
 * region's copy differs from its home's, and {@link io.unitas.core.reconcile.RepairAction#decide} what to do with one
 * key found different, by the entity's merge policy. Computing digests and writing repairs are the data layer's.
 */
package io.unitas.core.reconcile;
