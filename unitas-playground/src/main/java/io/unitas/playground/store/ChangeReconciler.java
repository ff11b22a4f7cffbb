package io.unitas.playground.store;

import io.unitas.data.store.StoreResult;

/**
 * How a replicator delivers one change to a target store: {@link #ORDINARY} applies it; {@link ShopReconciler}
 * first asks whether the change crossed a move of its unit (its old home did not ship it before a promotion) and
 * reconciles it instead of overwriting.
 */
public interface ChangeReconciler {

    /** Every change applied as it comes. */
    ChangeReconciler ORDINARY = new ChangeReconciler() {
        @Override
        public void beforeRound() { }

        @Override
        public StoreResult<Boolean> deliver(Change change, RegionalStore target) {
            return target.apply(change);
        }
    };

    /** Called before each replication round: a move seen here is known before any change that crossed it. */
    void beforeRound();

    /** Delivers {@code change} to {@code target}: {@code OK(true)} when it counted as applied there now. */
    StoreResult<Boolean> deliver(Change change, RegionalStore target);
}
