/**
 * Reconciliation after a promotion: a unit promoted away from a home that could not ship leaves that home's
 * acknowledged but unshipped changes behind. When the old home returns, those changes are told apart from ordinary
 * replication ({@link io.unitas.data.reconcile.MoveLedger}), and each is decided by the service's policy
 * ({@link io.unitas.data.reconcile.ReconcilePolicy}): taken as is where nothing diverged, merged where a merge
 * exists, surfaced as a {@link io.unitas.data.reconcile.Conflict} otherwise, never overwritten; an operation done on
 * both sides (one Idempotency-Key, two orders) is a duplicate that a {@link io.unitas.data.reconcile.Compensator}
 * undoes. {@link io.unitas.data.reconcile.Reconciliations} counts every outcome for metrics, health and reports.
 */
package io.unitas.data.reconcile;
